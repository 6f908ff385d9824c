/**
 * The example's tRPC router, served under `/trpc`: SPEC.md's routes as procedures,
 * secured by portcullis guards with the same demo users (HTTP Basic).
 */
import { initTRPC } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { z } from 'zod';
import { userOf } from 'portcullis/node';
import { assertSecured, createProcedures, preAuthorize, type UserContext } from 'portcullis/trpc';

const t = initTRPC.context<UserContext>().create();
const { publicProcedure, roleProcedure, authorityProcedure } = createProcedures(t);

const posts = [{ id: 1, authorId: 'writer', title: 'Hello' }];

export const appRouter = t.router({
  health: publicProcedure.query(() => 'OK'),
  profile: roleProcedure('USER').query(({ ctx }) => ({
    username: ctx.user.username,
    roles: [...ctx.user.roles],
    authorities: [...ctx.user.authorities],
  })),
  posts: t.router({
    list: t.procedure
      .use(preAuthorize("hasRole('USER') and hasAuthority('posts:read')"))
      .query(() => posts),
    create: authorityProcedure('posts:write')
      .input(z.object({ title: z.string().min(1).max(200) }))
      .mutation(({ ctx, input }) => ({
        id: posts.length + 1,
        authorId: ctx.user.username,
        ...input,
      })),
    // Ownership: the guard sits after .input(), so the rule sees the parsed input as args.
    rename: t.procedure
      .input(z.object({ authorId: z.string(), title: z.string().min(1).max(200) }))
      .use(preAuthorize("hasRole('ADMIN') or args.authorId == principal.username"))
      .mutation(({ input }) => ({ renamed: true, ...input })),
  }),
  admin: t.router({
    dashboard: roleProcedure('ADMIN').query(() => ({ users: 4, posts: posts.length })),
    createUser: t.procedure
      .use(preAuthorize("hasRole('ADMIN') and hasAuthority('users:write')"))
      .input(z.object({ username: z.string().min(1) }))
      .mutation(({ input }) => ({ created: input.username })),
  }),
});

export type AppRouter = typeof appRouter;

// Every procedure must carry a guard: a forgotten one fails here, at start-up.
assertSecured(appRouter);

/**
 * The `/trpc` handler. It runs behind `withSecurity`, so the user the
 * SecurityTransform authenticated is reused as the tRPC context (no second check).
 */
export const trpcHandler = createHTTPHandler({
  router: appRouter,
  basePath: '/trpc/',
  createContext: ({ req }) => ({ user: userOf(req) }),
});
