import { initTRPC } from '@trpc/server';
import type { CreateHTTPContextOptions } from '@trpc/server/adapters/standalone';
import type { FetchCreateContextFnOptions } from '@trpc/server/adapters/fetch';
import type { CreateExpressContextOptions } from '@trpc/server/adapters/express';
import type { CreateFastifyContextOptions } from '@trpc/server/adapters/fastify';
import type { CreateWSSContextFnOptions } from '@trpc/server/adapters/ws';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { compileExpression, type AuthenticatedUser } from '../../src/index.js';
import {
  authenticated,
  createProcedures,
  createTrpcContext,
  denyAll,
  permitAll,
  preAuthorize,
  rolesAllowed,
  secured,
  securityMeta,
  type DefaultPolicy,
  type TrpcContextFactory,
  type SecurityMeta,
  type UserContext,
} from '../../src/trpc/index.js';
import type { DefaultPolicy as GraphQLDefaultPolicy } from '../../src/graphql/index.js';

interface AppContext {
  user: AuthenticatedUser | null;
  db: { posts: string[] };
}
const t = initTRPC.context<AppContext>().meta<SecurityMeta & { openapi?: string }>().create();
declare const trpcContext: TrpcContextFactory;

describe('ctx.user narrowing', () => {
  it('is non-null after every guard but permitAll, with the rest of the context kept', () => {
    for (const guard of [
      authenticated(),
      secured('ADMIN'),
      rolesAllowed('ADMIN', 'OPS'),
      preAuthorize("hasRole('ADMIN')"),
      preAuthorize({ authority: 'posts:write' }),
      preAuthorize(compileExpression("hasAuthority('x')")),
      denyAll(),
    ]) {
      t.procedure.use(guard).query(({ ctx }) => {
        expectTypeOf(ctx.user).toEqualTypeOf<AuthenticatedUser>();
        expectTypeOf(ctx.db).toEqualTypeOf<{ posts: string[] }>();
        return ctx.user.username;
      });
    }
  });

  it('stays nullable after permitAll and securityMeta', () => {
    t.procedure.use(permitAll()).query(({ ctx }) => {
      expectTypeOf(ctx.user).toEqualTypeOf<AuthenticatedUser | null>();
    });
    t.procedure
      .use(securityMeta())
      .meta({ auth: { secured: 'ADMIN' }, openapi: 'x' })
      .query(({ ctx }) => {
        expectTypeOf(ctx.user).toEqualTypeOf<AuthenticatedUser | null>();
      });
  });

  it('reaches the next middlewares, and composes', () => {
    t.procedure
      .use(permitAll())
      .use(secured('USER'))
      .use(({ ctx, next }) => {
        expectTypeOf(ctx.user).toEqualTypeOf<AuthenticatedUser>();
        return next({ ctx: { name: ctx.user.username } });
      })
      .use(preAuthorize("hasAuthority('posts:read')"))
      .query(({ ctx }) => {
        expectTypeOf(ctx.user).toEqualTypeOf<AuthenticatedUser>();
        expectTypeOf(ctx.name).toEqualTypeOf<string>();
      });
  });

  it('keeps the parsed input type with a guard after .input()', () => {
    t.procedure
      .input(z.object({ authorId: z.string() }))
      .use(preAuthorize('args.authorId == principal.username'))
      .mutation(({ ctx, input }) => {
        expectTypeOf(input).toEqualTypeOf<{ authorId: string }>();
        expectTypeOf(ctx.user).toEqualTypeOf<AuthenticatedUser>();
      });
  });

  it('types the procedure builders', () => {
    const { publicProcedure, protectedProcedure, roleProcedure, authorityProcedure } =
      createProcedures(t);
    publicProcedure.query(({ ctx }) => {
      expectTypeOf(ctx.user).toEqualTypeOf<AuthenticatedUser | null>();
      expectTypeOf(ctx.db).toEqualTypeOf<{ posts: string[] }>();
    });
    for (const builder of [protectedProcedure, roleProcedure('ADMIN'), authorityProcedure('x')]) {
      builder.input(z.number()).query(({ ctx, input }) => {
        expectTypeOf(ctx.user).toEqualTypeOf<AuthenticatedUser>();
        expectTypeOf(ctx.db).toEqualTypeOf<{ posts: string[] }>();
        expectTypeOf(input).toEqualTypeOf<number>();
      });
    }
    const noUser = initTRPC.context<{ db: string }>().create();
    // @ts-expect-error the context must hold the user
    createProcedures(noUser);
  });
});

describe('checked rules', () => {
  it('checks expression literals with tsc', () => {
    // @ts-expect-error unknown function
    preAuthorize("hasRoel('ADMIN')");
    // @ts-expect-error unbalanced parentheses
    preAuthorize("hasRole('ADMIN'");
    // @ts-expect-error at least one role
    secured();
    // @ts-expect-error roles are strings
    rolesAllowed(1);
    const fromConfig: string = "hasRole('ADMIN')";
    preAuthorize(fromConfig);
  });

  it('types meta annotations: one security key', () => {
    t.procedure.meta({ auth: { preAuthorize: { role: ['ADMIN'], authority: 'x' } } });
    // @ts-expect-error two security keys in one annotation
    t.procedure.meta({ auth: { permitAll: true, secured: 'ADMIN' } });
    // @ts-expect-error permitAll: false means nothing
    t.procedure.meta({ auth: { permitAll: false } });
  });
});

describe('createContext for every adapter', () => {
  it('accepts the options of the standalone, Fetch, Express, Fastify and ws adapters', () => {
    expectTypeOf(trpcContext).toBeCallableWith({} as CreateHTTPContextOptions);
    expectTypeOf(trpcContext).toBeCallableWith({} as FetchCreateContextFnOptions);
    expectTypeOf(trpcContext).toBeCallableWith({} as CreateExpressContextOptions);
    expectTypeOf(trpcContext).toBeCallableWith({} as CreateFastifyContextOptions);
    expectTypeOf(trpcContext).toBeCallableWith({} as CreateWSSContextFnOptions);
    expectTypeOf(trpcContext).returns.resolves.toEqualTypeOf<UserContext>();
    expectTypeOf(createTrpcContext).returns.toEqualTypeOf<TrpcContextFactory>();
  });
});

describe('the vocabulary shared with portcullis/graphql', () => {
  it('has one DefaultPolicy, with the SPEC spelling denyAll', () => {
    expectTypeOf<DefaultPolicy>().toEqualTypeOf<GraphQLDefaultPolicy>();
    expectTypeOf<DefaultPolicy>().toEqualTypeOf<'permitAll' | 'authenticated' | 'denyAll'>();
    // @ts-expect-error tRPC's former 'deny' is gone
    securityMeta({ defaultPolicy: 'deny' });
  });
});
