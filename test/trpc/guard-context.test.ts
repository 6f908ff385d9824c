import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { AuthenticatedUser } from '../../src/index.js';
import {
  createGuards,
  permitAll,
  secured,
  securityMeta,
  type SecurityMeta,
  type UserContext,
} from '../../src/trpc/index.js';
import { mockUser } from '../../src/testing/index.js';

const alice = mockUser('alice');

describe('the context after a guard', () => {
  const t = initTRPC.context<UserContext>().meta<SecurityMeta>().create();
  const userOfCtx = ({ ctx }: { ctx: { user: unknown } }) =>
    ctx.user instanceof AuthenticatedUser ? ctx.user.username : String(ctx.user);

  it('holds the caller itself, and the rest of the context', async () => {
    const router = t.router({
      secured: t.procedure.use(secured('USER')).query(({ ctx }) => [ctx.user, ctx]),
      lean: t.procedure
        .use(createGuards({ securityContext: false }).secured('USER'))
        .query(({ ctx }) => [ctx.user, ctx]),
      open: t.procedure.use(permitAll()).query(({ ctx }) => [ctx.user, ctx]),
      meta: t.procedure
        .use(securityMeta())
        .meta({ auth: { secured: 'USER' } })
        .query(({ ctx }) => [ctx.user, ctx]),
    });
    const caller = router.createCaller({ user: alice, db: 'db' } as UserContext);
    for (const [user, ctx] of await Promise.all([
      caller.secured(),
      caller.lean(),
      caller.open(),
      caller.meta(),
    ])) {
      expect(user).toBe(alice);
      expect((ctx as { db?: unknown }).db).toBe('db');
    }
  });

  it('makes anything but an AuthenticatedUser in ctx.user anonymous (permitAll, meta permitAll)', async () => {
    const router = t.router({
      open: t.procedure.use(permitAll()).query(userOfCtx),
      lean: t.procedure.use(createGuards({ securityContext: false }).permitAll()).query(userOfCtx),
      meta: t.procedure
        .use(securityMeta())
        .meta({ auth: { permitAll: true } })
        .query(userOfCtx),
    });
    const caller = router.createCaller({ user: { username: 'mallory' } } as never);
    expect(await Promise.all([caller.open(), caller.lean(), caller.meta()])).toEqual([
      'null',
      'null',
      'null',
    ]);
    const anonymous = router.createCaller({} as never);
    expect(await Promise.all([anonymous.open(), anonymous.meta()])).toEqual(['null', 'null']);
  });
});
