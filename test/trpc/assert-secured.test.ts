import { experimental_lazy, initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError } from '../../src/index.js';
import {
  assertSecured,
  createProcedures,
  permitAll,
  preAuthorize,
  securityMeta,
  type AuthMeta,
  type SecurityMeta,
  type UserContext,
} from '../../src/trpc/index.js';
import { appRouter } from './fixture.js';

const t = initTRPC.context<UserContext>().meta<SecurityMeta>().create();
const meta = t.procedure.use(securityMeta());
const { protectedProcedure } = createProcedures(t);

function problemsOf(run: () => void): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).code).toBe('ERR_INVALID_OPTION');
    expect((error as ConfigurationError).option).toBe('router');
    return (error as Error).message;
  }
  return '';
}

describe('assertSecured', () => {
  it('accepts a router whose procedures all have a guard or meta.auth', () => {
    const router = t.router({
      open: meta.meta({ auth: { permitAll: true } }).query(() => 1),
      guarded: protectedProcedure.query(() => 2),
      explicit: t.procedure.use(permitAll()).query(() => 3),
      nested: t.router({ admin: meta.meta({ auth: { secured: 'ADMIN' } }).query(() => 4) }),
    });
    expect(
      problemsOf(() => {
        assertSecured(router);
      }),
    ).toBe('');
  });

  it('finds the one mistake of the test app: a guard on args before .input()', () => {
    expect(
      problemsOf(() => {
        assertSecured(appRouter);
      }),
    ).toBe(
      'router: procedures not secured:\n' +
        '  posts.updateEarly: args.authorId == principal.username reads args but runs before .input()',
    );
  });

  it('lists every procedure without security, by path', () => {
    const router = t.router({
      fine: meta.meta({ auth: { authenticated: true } }).query(() => 1),
      forgotten: meta.query(() => 2),
      nested: t.router({ bare: t.procedure.mutation(() => 3) }),
    });
    const message = problemsOf(() => {
      assertSecured(router);
    });
    expect(message).toContain('forgotten: no guard and no meta.auth');
    expect(message).toContain('nested.bare: no guard and no meta.auth');
    expect(message).not.toContain('fine');
  });

  it('compiles every annotation at start-up', () => {
    const router = t.router({
      typo: meta.meta({ auth: { preAuthorize: "hasRoel('ADMIN')" } }).query(() => 1),
      twoKeys: meta
        .meta({ auth: { permitAll: true, denyAll: true } as unknown as AuthMeta })
        .query(() => 2),
      misspelt: meta.meta({ auth: { secure: 'ADMIN' } as unknown as AuthMeta }).query(() => 3),
      falseFlag: meta.meta({ auth: { permitAll: false } as unknown as AuthMeta }).query(() => 4),
    });
    const message = problemsOf(() => {
      assertSecured(router);
    });
    expect(message).toMatch(/typo: invalid meta\.auth \(.*hasRoel/u);
    expect(message).toMatch(/twoKeys: invalid meta\.auth \(meta\.auth: must have exactly one/u);
    expect(message).toMatch(/misspelt: invalid meta\.auth \(.*did you mean "secured"/u);
    expect(message).toMatch(/falseFlag: invalid meta\.auth \(meta\.auth\.permitAll: must be true/u);
  });

  it('reports meta.auth that no securityMeta() middleware enforces', () => {
    const router = t.router({
      ignored: t.procedure.meta({ auth: { secured: 'ADMIN' } }).query(() => 1),
    });
    expect(
      problemsOf(() => {
        assertSecured(router);
      }),
    ).toContain('ignored: has meta.auth but securityMeta() does not run for it');
  });

  it('reports a rule on args that runs before .input()', () => {
    const input = z.object({ authorId: z.string() });
    const rule = 'args.authorId == principal.username';
    const router = t.router({
      early: t.procedure
        .use(preAuthorize(rule))
        .input(input)
        .query(() => 1),
      late: t.procedure
        .input(input)
        .use(preAuthorize(rule))
        .query(() => 2),
      metaEarly: meta
        .meta({ auth: { preAuthorize: rule } })
        .input(input)
        .query(() => 3),
    });
    const message = problemsOf(() => {
      assertSecured(router);
    });
    expect(message).toContain(`early: ${rule} reads args but runs before .input()`);
    expect(message).toContain(`metaEarly: ${rule} reads args but runs before .input()`);
    expect(message).not.toContain('late');
  });

  it('reports unloaded lazy routers unless allowed', () => {
    const router = t.router({
      open: meta.meta({ auth: { permitAll: true } }).query(() => 1),
      later: experimental_lazy(() =>
        Promise.resolve(t.router({ x: meta.meta({ auth: { permitAll: true } }).query(() => 2) })),
      ),
    });
    expect(
      problemsOf(() => {
        assertSecured(router);
      }),
    ).toContain('later: lazy router not loaded, cannot be checked');
    expect(
      problemsOf(() => {
        assertSecured(router, { allowLazy: true });
      }),
    ).toBe('');
  });

  it('refuses what is not a router', () => {
    expect(() => {
      assertSecured({} as never);
    }).toThrow(ConfigurationError);
  });
});
