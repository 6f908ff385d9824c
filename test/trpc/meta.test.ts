import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AuthenticatedUser, compileExpression, SecurityContext, User } from '../../src/index.js';
import {
  securityMeta,
  type AuthMeta,
  type DefaultPolicy,
  type SecurityMeta,
  type UserContext,
} from '../../src/trpc/index.js';
import type { TestServer } from '../support/server.js';
import { demoContext, headersOf, serveStandalone, type Name } from './fixture.js';

const t = initTRPC.context<UserContext>().meta<SecurityMeta>().create();
const procedure = t.procedure.use(securityMeta());

let reads = 0;
/** An annotation that counts how often its rule is read: compiled once, then cached. */
const counted: AuthMeta = {
  get preAuthorize() {
    reads++;
    return "hasRole('USER')";
  },
};

const metaRouter = t.router({
  open: procedure.meta({ auth: { permitAll: true } }).query(({ ctx }) => ctx.user?.username ?? '-'),
  closed: procedure.meta({ auth: { denyAll: true } }).query(() => 'never'),
  me: procedure.meta({ auth: { authenticated: true } }).query(() => 'me'),
  admin: procedure.meta({ auth: { secured: 'ADMIN' } }).query(() => 'admin'),
  users: procedure.meta({ auth: { rolesAllowed: ['USER', 'OPS'] } }).query(() => 'users'),
  list: procedure
    .meta({ auth: { preAuthorize: "hasRole('USER') and hasAuthority('posts:read')" } })
    .query(() => 'list'),
  write: procedure.meta({ auth: { preAuthorize: { authority: 'posts:write' } } }).query(() => 'w'),
  compiled: procedure
    .meta({ auth: { preAuthorize: compileExpression("hasRole('ADMIN')") } })
    .query(() => 'compiled'),
  counted: procedure.meta({ auth: counted }).query(() => 'counted'),
  forgotten: procedure.query(() => 'forgotten'),
  broken: procedure.meta({ auth: { preAuthorize: "hasRoel('USER')" } }).query(() => 'broken'),
  context: procedure.meta({ auth: { authenticated: true } }).query(async () => {
    await new Promise((resolve) => setTimeout(resolve, 2));
    return SecurityContext.requireUser().username;
  }),
  owner: t.procedure
    .input(z.object({ authorId: z.string() }))
    .use(securityMeta())
    .meta({ auth: { preAuthorize: 'args.authorId == principal.username' } })
    .query(() => 'owner'),
});

const MATRIX: readonly [keyof typeof metaRouter, Name | 'anonymous', number][] = [
  ['open', 'anonymous', 200],
  ['closed', 'anonymous', 401],
  ['closed', 'admin', 403],
  ['me', 'anonymous', 401],
  ['me', 'guest', 200],
  ['admin', 'user', 403],
  ['admin', 'admin', 200],
  ['users', 'guest', 403],
  ['users', 'user', 200],
  ['list', 'anonymous', 401],
  ['list', 'guest', 403],
  ['list', 'user', 200],
  ['write', 'user', 403],
  ['write', 'writer', 200],
  ['compiled', 'writer', 403],
  ['compiled', 'admin', 200],
  ['forgotten', 'anonymous', 401],
  ['forgotten', 'admin', 403],
];

describe('securityMeta over the standalone adapter', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await serveStandalone(metaRouter, demoContext());
  });
  afterAll(() => server.close());

  for (const [path, who, status] of MATRIX) {
    it(`${path} as ${who} → ${status}`, async () => {
      const response = await fetch(`${server.origin}/${path}`, { headers: headersOf(who) });
      expect(response.status).toBe(status);
      if (status >= 400) expect(await response.text()).not.toMatch(/hasRole|ADMIN|posts:/u);
    });
  }

  it('compiles an annotation once, then uses the cache', async () => {
    reads = 0;
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${server.origin}/counted`, { headers: headersOf('user') });
      expect(response.status).toBe(200);
    }
    expect(reads).toBe(1);
  });

  it('answers an invalid annotation with an internal error, never the resolver', async () => {
    const response = await fetch(`${server.origin}/broken`, { headers: headersOf('admin') });
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain('hasRoel');
  });

  it('fills the SecurityContext', async () => {
    const response = await fetch(`${server.origin}/context`, { headers: headersOf('writer') });
    expect(await response.json()).toEqual({ result: { data: 'writer' } });
  });

  it('sees the parsed input when it runs after .input()', async () => {
    const call = (authorId: string) =>
      fetch(`${server.origin}/owner?input=${encodeURIComponent(JSON.stringify({ authorId }))}`, {
        headers: headersOf('user'),
      });
    expect((await call('user')).status).toBe(200);
    expect((await call('writer')).status).toBe(403);
  });
});

describe('securityMeta default policies', () => {
  const user = AuthenticatedUser.from(new User('u', '', ['USER']));
  const routerWith = (defaultPolicy: DefaultPolicy) => {
    const base = t.procedure.use(securityMeta({ defaultPolicy }));
    return t.router({ bare: base.query(({ ctx }) => ctx.user?.username ?? 'anonymous') });
  };
  const code = async (call: Promise<unknown>) => {
    try {
      return await call;
    } catch (error) {
      return (error as { code: string }).code;
    }
  };

  it.each([
    ['denyAll', 'UNAUTHORIZED', 'FORBIDDEN'],
    ['authenticated', 'UNAUTHORIZED', 'u'],
    ['permitAll', 'anonymous', 'u'],
  ] as const)('%s', async (policy, anonymous, authenticated) => {
    const router = routerWith(policy);
    expect(await code(router.createCaller({ user: null }).bare())).toBe(anonymous);
    expect(await code(router.createCaller({ user }).bare())).toBe(authenticated);
  });

  it('is denyAll by default: an unannotated procedure is refused', async () => {
    const base = t.procedure.use(securityMeta());
    const router = t.router({ bare: base.query(() => 'served') });
    expect(await code(router.createCaller({ user: null }).bare())).toBe('UNAUTHORIZED');
    expect(await code(router.createCaller({ user }).bare())).toBe('FORBIDDEN');
  });

  it('securityContext: false guards without filling the SecurityContext', async () => {
    const seen = () => SecurityContext.getUser()?.username ?? 'none';
    const lean = t.procedure.use(securityMeta({ securityContext: false }));
    const full = t.procedure.use(securityMeta());
    const router = t.router({
      lean: lean
        .meta({ auth: { secured: 'USER' } })
        .query(({ ctx }) => `${seen()}:${ctx.user?.username}`),
      full: full
        .meta({ auth: { secured: 'USER' } })
        .query(({ ctx }) => `${seen()}:${ctx.user?.username}`),
      admin: lean.meta({ auth: { secured: 'ADMIN' } }).query(() => 'ok'),
    });
    expect(await code(router.createCaller({ user }).lean())).toBe('none:u');
    expect(await code(router.createCaller({ user }).full())).toBe('u:u');
    expect(await code(router.createCaller({ user }).admin())).toBe('FORBIDDEN');
    expect(await code(router.createCaller({ user: null }).lean())).toBe('UNAUTHORIZED');
  });

  it('treats a forged user object as anonymous', async () => {
    const forged = { username: 'admin', roles: new Set(['ADMIN']) } as unknown as AuthenticatedUser;
    expect(await code(metaRouter.createCaller({ user: forged }).me())).toBe('UNAUTHORIZED');
  });
});
