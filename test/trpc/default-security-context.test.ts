import { AsyncLocalStorage } from 'node:async_hooks';
import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { SecurityContext } from '../../src/index.js';
import {
  authenticated,
  createGuards,
  createProcedures,
  permitAll,
  secured,
  securityMeta,
  type SecurityMeta,
  type UserContext,
} from '../../src/trpc/index.js';
import { createTrpcCallerAs, mockUser } from '../../src/testing/index.js';

/**
 * README (tRPC, `securityContext`) and CHANGELOG (Runtimes and peers): the guards fill
 * `SecurityContext` by default on every runtime, whether AsyncLocalStorage runs on
 * promise hooks (Node 20, 22) or on AsyncContextFrame (Node 24): turning it off is
 * the application's choice, never the runtime's.
 */
const storage =
  typeof (AsyncLocalStorage.prototype as { _enable?: unknown })._enable === 'function'
    ? 'promise hooks'
    : 'AsyncContextFrame';

const alice = mockUser('alice');
const seen = () => SecurityContext.getUser()?.username ?? 'nobody';

describe(`the default securityContext on Node ${process.version} (AsyncLocalStorage on ${storage})`, () => {
  it('is on: every default guard fills SecurityContext for the procedure', async () => {
    const t = initTRPC.context<UserContext>().meta<SecurityMeta>().create();
    const { protectedProcedure } = createProcedures(t);
    const router = t.router({
      secured: t.procedure.use(secured('USER')).query(seen),
      authenticated: t.procedure.use(authenticated()).query(seen),
      permitAll: t.procedure.use(permitAll()).query(seen),
      created: t.procedure.use(createGuards().secured('USER')).query(seen),
      createdEmpty: t.procedure.use(createGuards({}).secured('USER')).query(seen),
      meta: t.procedure
        .use(securityMeta())
        .meta({ auth: { secured: 'USER' } })
        .query(seen),
      procedure: protectedProcedure.query(seen),
    });
    const caller = createTrpcCallerAs(router, alice); // the context createTrpcContext builds
    const answers = await Promise.all([
      caller.secured(),
      caller.authenticated(),
      caller.permitAll(),
      caller.created(),
      caller.createdEmpty(),
      caller.meta(),
      caller.procedure(),
    ]);
    expect(answers).toEqual(Array.from({ length: 7 }, () => 'alice'));
    expect(SecurityContext.getUser()).toBeNull();
  });

  it('is off only when asked: securityContext: false leaves it empty on this runtime too', async () => {
    const t = initTRPC.context<UserContext>().create();
    const router = t.router({
      lean: t.procedure.use(createGuards({ securityContext: false }).secured('USER')).query(seen),
    });
    expect(await createTrpcCallerAs(router, alice).lean()).toBe('nobody');
  });
});
