import { setTimeout as sleep } from 'node:timers/promises';
import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import { initTRPC, type AnyTRPCRouter } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { expect } from 'vitest';
import { z } from 'zod';
import {
  AuthenticationManager,
  compileExpression,
  DelegatingPasswordEncoder,
  NoOpPasswordEncoder,
  SecurityContext,
  SecurityEvents,
  User,
  type Authenticator,
} from '../../src/index.js';
import {
  authenticated,
  createProcedures,
  createTrpcContext,
  denyAll,
  permitAll,
  preAuthorize,
  rolesAllowed,
  secured,
  type TrpcContextFactory,
  type SecurityMeta,
  type UserContext,
} from '../../src/trpc/index.js';
import { USERS } from '../support/fixture.js';
import { basic, listen, type TestServer } from '../support/server.js';

export type Name = keyof typeof USERS;

/** The in-memory authenticator of the adapter tests: password `<name>-pw`, `{noop}`. */
export function createAuthenticator(events = new SecurityEvents()): Authenticator {
  const encoder = new DelegatingPasswordEncoder()
    .withEncoder('noop', new NoOpPasswordEncoder())
    .defaultEncoder('noop');
  let authenticator = AuthenticationManager.inMemoryAuthentication({ events }).passwordEncoder(
    encoder,
  );
  for (const [name, { roles, authorities }] of Object.entries(USERS)) {
    authenticator = authenticator.withUser(
      new User(name, `{noop}${name}-pw`).withRoles(roles).withAuthorities(authorities),
    );
  }
  return authenticator;
}

/** `Authorization` headers for a demo user (or none for `anonymous`). */
export function headersOf(name: Name | 'anonymous'): Record<string, string> {
  return name === 'anonymous' ? {} : { authorization: basic(name, `${name}-pw`) };
}

export const t = initTRPC.context<UserContext>().meta<SecurityMeta>().create();

const { publicProcedure, protectedProcedure, roleProcedure, authorityProcedure } =
  createProcedures(t);

/** Fails for post 13: an async custom function whose failure must deny, not error. */
const ownsPost = compileExpression("hasRole('ADMIN') or owns(args.postId)", {
  functions: {
    owns: {
      params: ['reference'],
      async: true,
      call: async (user, postId) => {
        await sleep(1);
        if (postId === 13) throw new Error('database down');
        return user?.username === 'writer' && postId === 7;
      },
    },
  },
});

/** What `endless` recorded each time a stream was stopped. */
export const stopped: string[] = [];

const post = z.object({ authorId: z.string(), text: z.string() });

/** The router most tests serve: one procedure per guard, SPEC.md's routes, ownership rules. */
/** Streams `<SecurityContext user>:<ctx user>:<i>`, pausing between events. */
const ticks = protectedProcedure
  .input(z.object({ count: z.number().int().min(1).max(5) }))
  .subscription(async function* ({ ctx, input }) {
    for (let i = 0; i < input.count; i++) {
      await sleep(1 + (i % 3));
      yield `${SecurityContext.getUser()?.username ?? 'none'}:${ctx.user.username}:${i}`;
    }
  });

const securedRecord = {
  health: publicProcedure.query(({ ctx }) => `hello ${ctx.user?.username ?? 'anonymous'}`),
  profile: protectedProcedure.query(({ ctx }) => ctx.user.username),
  guards: t.router({
    authenticated: t.procedure.use(authenticated()).query(({ ctx }) => ctx.user.username),
    secured: t.procedure.use(secured('ADMIN', 'OPS')).query(({ ctx }) => ctx.user.username),
    rolesAllowed: t.procedure.use(rolesAllowed('USER')).query(({ ctx }) => ctx.user.username),
    expression: t.procedure
      .use(preAuthorize("hasRole('USER') and hasAuthority('posts:read')"))
      .query(({ ctx }) => ctx.user.username),
    authority: t.procedure
      .use(preAuthorize({ authority: 'posts:write' }))
      .query(({ ctx }) => ctx.user.username),
    permitAll: t.procedure.use(permitAll()).query(({ ctx }) => ctx.user?.username ?? null),
    denyAll: t.procedure.use(denyAll()).query(() => 'never'),
  }),
  admin: t.router({
    dashboard: roleProcedure('ADMIN').query(() => 'dashboard'),
    createUser: t.procedure
      .use(preAuthorize("hasRole('ADMIN') and hasAuthority('users:write')"))
      .input(z.object({ name: z.string() }))
      .mutation(({ input }) => `created ${input.name}`),
  }),
  ctx: protectedProcedure.input(z.number()).query(async ({ ctx, input }) => {
    for (let i = 0; i < 3; i++) await sleep((input * 7 + i) % 5);
    const current = SecurityContext.requireUser();
    expect(current).toBe(ctx.user);
    return current.username;
  }),
  ticks,
  /** Up to 50 events; records the SecurityContext and ctx users when the stream is stopped. */
  endless: protectedProcedure.subscription(async function* ({ ctx }) {
    try {
      for (let i = 0; i < 50; i++) {
        await sleep(2);
        yield i;
      }
    } finally {
      stopped.push(`${SecurityContext.getUser()?.username ?? 'none'}:${ctx.user.username}`);
    }
  }),
  adminTicks: roleProcedure('ADMIN').subscription(async function* () {
    await sleep(1);
    yield 'admin only';
  }),
};

const securedPosts = {
  list: t.procedure
    .use(preAuthorize("hasRole('USER') and hasAuthority('posts:read')"))
    .query(() => ['first']),
  create: authorityProcedure('posts:write')
    .input(z.object({ text: z.string() }))
    .mutation(({ input, ctx }) => `${ctx.user.username}: ${input.text}`),
  update: t.procedure
    .input(post)
    .use(preAuthorize("hasRole('ADMIN') or args.authorId == principal.username"))
    .mutation(({ input, ctx }) => `${ctx.user.username} updated ${input.authorId}`),
  remove: protectedProcedure
    .input(z.object({ postId: z.number() }))
    .use(preAuthorize(ownsPost))
    .mutation(({ input }) => `removed ${input.postId}`),
};

/** Every procedure of {@link appRouter} but the misordered `posts.updateEarly`: it passes `assertSecured`. */
export const securedRouter = t.router({ ...securedRecord, posts: t.router(securedPosts) });

export const appRouter = t.router({
  ...securedRecord,
  posts: t.router({
    ...securedPosts,
    /** The guard before `.input()`: `args` is undefined there, so the rule never passes. */
    updateEarly: t.procedure
      .use(preAuthorize('args.authorId == principal.username'))
      .input(post)
      .mutation(() => 'updated'),
  }),
});

export type AppRouter = typeof appRouter;

/** What a subscription delivered before it completed or failed. */
export interface Delivery {
  readonly data: unknown[];
  readonly error: TRPCClientError<AppRouter> | undefined;
}

/** Subscribes and collects until the stream completes or fails (5 s at most). */
export function collect(
  subscribe: (handlers: {
    onData: (value: unknown) => void;
    onError: (error: TRPCClientError<AppRouter>) => void;
    onComplete: () => void;
  }) => { unsubscribe(): void },
): Promise<Delivery> {
  return new Promise((resolve, reject) => {
    const data: unknown[] = [];
    const timer = setTimeout(() => {
      subscription.unsubscribe();
      reject(new Error(`subscription did not finish; got ${JSON.stringify(data)}`));
    }, 5000);
    const done = (error?: TRPCClientError<AppRouter>) => {
      clearTimeout(timer);
      resolve({ data, error });
    };
    const subscription = subscribe({
      onData: (value) => data.push(value),
      onError: (error) => {
        queueMicrotask(() => {
          subscription.unsubscribe();
        });
        done(error);
      },
      onComplete: () => {
        done();
      },
    });
  });
}

/** A standalone tRPC server on 127.0.0.1 serving `router` with `createContext`. */
export function serveStandalone(
  router: AnyTRPCRouter,
  createContext: TrpcContextFactory,
): Promise<TestServer> {
  return listen(createHTTPServer({ router, createContext }));
}

/** A client for a demo user, batching by default. */
export function clientFor(origin: string, name: Name | 'anonymous', batch = true) {
  const headers = headersOf(name);
  const link = batch ? httpBatchLink({ url: origin, headers }) : httpLink({ url: origin, headers });
  return createTRPCClient<AppRouter>({ links: [link] });
}

/** The context factory for the demo users. */
export function demoContext(events?: SecurityEvents): TrpcContextFactory {
  return createTrpcContext({ authenticator: createAuthenticator(events) });
}

/** The tRPC error code a call failed with, or `'OK'`. */
export async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'OK';
  } catch (error) {
    if (error instanceof TRPCClientError) {
      return (error.data as { code?: string } | undefined)?.code ?? 'NO_CODE';
    }
    throw error;
  }
}

/** The error a call failed with. */
export async function failure(call: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  try {
    await call;
  } catch (error) {
    if (error instanceof TRPCClientError) return error as TRPCClientError<AppRouter>;
    throw error;
  }
  throw new Error('the call succeeded');
}
