/**
 * A benchmark server process: a tRPC standalone HTTP server answering one query,
 * the stack chosen by `STACK`, every token an HS256 access token signed with
 * `JWT_SECRET`:
 *
 * - `bare`: a context with the request only; `/plain` unguarded, `/noop` behind a
 *   do-nothing middleware (tRPC's own cost of one), `/handwritten` behind the jose +
 *   role middleware users write today (`jwtVerify` with a pre-imported key, the
 *   `roles` claim checked, 401 / 403 as `TRPCError`s);
 * - `portcullis`: portcullis's `createTrpcContext` over its JWT authenticator
 *   (verified-token cache on, the default); `/plain` unguarded and `/guarded` behind
 *   `secured('USER')`;
 * - `portcullis-lean`: the same with `createGuards({ securityContext: false })`.
 *
 * Reports its port over IPC and answers `cpu` messages with its CPU time.
 */
import type { IncomingMessage } from 'node:http';
import { initTRPC } from '@trpc/server';
import { handwrittenCheck, importHmacKey } from './handwritten-trpc.js';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { createGuards, createTrpcContext, secured, type UserContext } from 'portcullis/trpc';
import { serveForBenchmark } from './serve.js';

const secret = process.env['JWT_SECRET'];
if (secret === undefined) throw new Error('JWT_SECRET is required');
const stack = process.env['STACK'] ?? 'bare';
const answer = { hello: 'world' };

if (stack === 'portcullis' || stack === 'portcullis-lean') {
  const jwt = new JwtAuthenticator(new JwtConfig(secret));
  const t = initTRPC.context<UserContext>().create();
  // Lean: the guard leaves SecurityContext (AsyncLocalStorage) alone, so node's
  // promise hooks never switch on in this process.
  const guard =
    stack === 'portcullis-lean' ? createGuards({ securityContext: false }).secured : secured;
  const router = t.router({
    plain: t.procedure.query(() => answer),
    guarded: t.procedure.use(guard('USER')).query(() => answer),
  });
  serveForBenchmark(
    createHTTPServer({
      router,
      // `/plain` is unguarded on purpose: it measures the context alone, beside the
      // guard. Without the opt-out, deny by default refuses it.
      createContext: createTrpcContext({
        authenticator: jwt,
        dangerouslyAllowUnguardedProcedures: true,
      }),
    }),
  );
} else if (stack === 'bare') {
  const key = await importHmacKey(secret);
  const t = initTRPC.context<{ req: IncomingMessage }>().create();
  const authenticated = t.middleware(async ({ ctx, next }) => {
    const user = await handwrittenCheck(ctx.req.headers.authorization, key);
    return next({ ctx: { user } });
  });
  const router = t.router({
    plain: t.procedure.query(() => answer),
    noop: t.procedure.use(({ next }) => next()).query(() => answer),
    handwritten: t.procedure.use(authenticated).query(() => answer),
  });
  serveForBenchmark(createHTTPServer({ router, createContext: ({ req }) => ({ req }) }));
} else {
  throw new Error(`unknown STACK ${stack}`);
}
