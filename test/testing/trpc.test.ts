import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { IncomingMessage } from 'node:http';
import { ConfigurationError, SecurityContext, rateLimit } from '../../src/index.js';
import {
  createProcedures,
  permitAll,
  preAuthorize,
  rateLimited,
  secured,
  type UserContext,
} from '../../src/trpc/index.js';
import { createTrpcCallerAs, mockUser } from '../../src/testing/index.js';

const t = initTRPC.context<UserContext & { db: { name: string } }>().create();
const { publicProcedure, protectedProcedure } = createProcedures(t);
const router = t.router({
  health: publicProcedure.query(({ ctx }) => `ok ${ctx.user?.username ?? 'anonymous'}`),
  profile: protectedProcedure.query(({ ctx }) => ({
    name: ctx.user.username,
    db: ctx.db.name,
    current: SecurityContext.requireUser().username,
  })),
  admin: t.router({
    dashboard: t.procedure.use(secured('ADMIN')).query(() => 'stats'),
  }),
  rename: t.procedure
    .input(z.object({ owner: z.string() }))
    .use(preAuthorize("hasRole('ADMIN') or args.owner == principal.username"))
    .mutation(({ input }) => `renamed for ${input.owner}`),
});

const admin = mockUser('ann', { roles: ['ADMIN'] });
const user = mockUser('bob');
const db = { name: 'test-db' };

describe('createTrpcCallerAs', () => {
  it('passes an admin, refuses a user with FORBIDDEN and anonymous with UNAUTHORIZED', async () => {
    expect(await createTrpcCallerAs(router, admin, { context: { db } }).admin.dashboard()).toBe(
      'stats',
    );
    await expect(
      createTrpcCallerAs(router, user, { context: { db } }).admin.dashboard(),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'Access is denied' });
    await expect(
      createTrpcCallerAs(router, null, { context: { db } }).admin.dashboard(),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'Authentication is required' });
  });

  it('gives the procedure the user, the extra context and the SecurityContext', async () => {
    const caller = createTrpcCallerAs(router, user, { context: { db } });
    expect(await caller.profile()).toEqual({ name: 'bob', db: 'test-db', current: 'bob' });
    expect(await createTrpcCallerAs(router, null, { context: { db } }).health()).toBe(
      'ok anonymous',
    );
  });

  it('checks args rules on the parsed input', async () => {
    const caller = createTrpcCallerAs(router, user, { context: { db } });
    expect(await caller.rename({ owner: 'bob' })).toBe('renamed for bob');
    await expect(caller.rename({ owner: 'ann' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('keeps the request on the context: per-address rate limits count the calls', async () => {
    const once = rateLimit({ name: 'kit-once', window: '1m', max: 1, by: 'address' });
    const limited = t.router({
      ping: t.procedure
        .use(rateLimited(once))
        .use(permitAll())
        .query(() => 'pong'),
    });
    const caller = createTrpcCallerAs(limited, null, { context: { db } });
    expect(await caller.ping()).toBe('pong');
    await expect(caller.ping()).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    const elsewhere = {
      method: 'POST',
      url: '/trpc',
      headers: {},
      socket: { remoteAddress: '203.0.113.7' },
    } as unknown as IncomingMessage;
    expect(
      await createTrpcCallerAs(limited, null, { context: { db }, request: elsewhere }).ping(),
    ).toBe('pong');
  });

  it('takes a context function, for contexts that nest the security part', async () => {
    const nested = initTRPC.context<{ auth: UserContext }>().create();
    const r = nested.router({
      me: nested.procedure.use(permitAll()).query(({ ctx }) => ctx.auth.user?.username ?? null),
    });
    // permitAll reads ctx.user; the nested context is the application's own business.
    const caller = createTrpcCallerAs(r, admin, {
      context: (security) => ({ ...security, auth: security }),
    });
    expect(await caller.me()).toBe('ann');
  });

  it('refuses a router with an unguarded procedure (deny by default), unless told', async () => {
    const open = t.router({ leak: t.procedure.query(() => 'secret') });
    const refused = createTrpcCallerAs(open, admin, { context: { db } }).leak();
    await expect(refused).rejects.toBeInstanceOf(ConfigurationError);
    await expect(refused).rejects.toThrow(/procedures not secured.*leak/su);
    const allowed = createTrpcCallerAs(open, admin, {
      context: { db },
      dangerouslyAllowUnguardedProcedures: true,
    });
    expect(await allowed.leak()).toBe('secret');
  });

  it('refuses a user that is not an AuthenticatedUser, and a user in the context', () => {
    expect(() => createTrpcCallerAs(router, { username: 'eve' } as never)).toThrow(TypeError);
    expect(() =>
      createTrpcCallerAs(router, null, { context: { db, user: admin } as never }),
    ).toThrow(/must not hold user/u);
    expect(() => createTrpcCallerAs(router, null, { ctx: { db } } as never)).toThrow(
      /did you mean "context"/u,
    );
  });
});
