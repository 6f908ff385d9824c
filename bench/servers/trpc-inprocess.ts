/**
 * A child process of the in-process tRPC benchmark (bench/trpc-inprocess.ts): it
 * serves one tRPC query through tRPC's Fetch adapter (`fetchRequestHandler`, a new
 * `Request` per call and its `Response` body read; no socket), and times the rows
 * its runner asks for, one at a time, over IPC.
 *
 * `MODE` says which rows the process may run, because on a runtime whose
 * `AsyncLocalStorage` runs on promise hooks (Node 20 and 22) the first
 * `SecurityContext.run` slows every later promise of the process, whatever row it
 * belongs to:
 *
 * - `clean`: no `SecurityContext` ever: the bare procedure (unguarded, behind a
 *   do-nothing middleware, behind the hand-written jose + role middleware), and
 *   portcullis's `createTrpcContext` (its JWT authenticator, the same token) with
 *   the query unguarded and behind `secured('USER')` with `securityContext: false`;
 * - `context`: `secured('USER')` with `securityContext: true`, and the bare procedure
 *   and `securityContext: false` again, in this process where `SecurityContext` has run.
 *
 * Every token is an HS256 access token signed with `JWT_SECRET`; `TOKEN` is the one
 * timed. Before it reports ready, every guard of the process must answer 200 to the
 * token, 401 to no token and to `FORGED`, and 403 to `NO_ROLE`, and the guard's
 * procedure must see (or, with `securityContext: false`, not see) the user in
 * `SecurityContext`.
 *
 * Messages: the runner sends `{ run, calls }`; the process answers `{ row, cpu, wall }`
 * (CPU and wall-clock µs per call), or `{ error }`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { initTRPC } from '@trpc/server';
import { handwrittenCheck, importHmacKey } from './handwritten-trpc.js';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { SecurityContext } from 'portcullis';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { createGuards, createTrpcContext, type UserContext } from 'portcullis/trpc';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};
const secret = env('JWT_SECRET');
const token = env('TOKEN');
const mode = env('MODE');
if (mode !== 'clean' && mode !== 'context') throw new Error(`unknown MODE ${mode}`);
const answer = { hello: 'world' };

// The bare procedure: a context with the request only.
const key = await importHmacKey(secret);
const tb = initTRPC.context<{ req: Request }>().create();
const handwritten = tb.middleware(async ({ ctx, next }) => {
  const user = await handwrittenCheck(ctx.req.headers.get('authorization'), key);
  return next({ ctx: { user } });
});
const bare = tb.router({
  plain: tb.procedure.query(() => answer),
  noop: tb.procedure.use(({ next }) => next()).query(() => answer),
  handwritten: tb.procedure.use(handwritten).query(() => answer),
});

// portcullis: the context factory over its JWT authenticator (verified-token cache on).
const tp = initTRPC.context<UserContext>().create();
const withContext = createGuards({ securityContext: true }).secured;
const lean = createGuards({ securityContext: false }).secured;
const seen = () => ({ user: SecurityContext.getUser()?.username ?? null });
const portcullis = tp.router({
  plain: tp.procedure.query(() => answer),
  lean: tp.procedure.use(lean('USER')).query(() => answer),
  leanSeen: tp.procedure.use(lean('USER')).query(seen),
  ...(mode === 'context'
    ? {
        guarded: tp.procedure.use(withContext('USER')).query(() => answer),
        guardedSeen: tp.procedure.use(withContext('USER')).query(seen),
      }
    : {}),
});
// `plain` is unguarded on purpose (the context alone, beside the guard), as over HTTP.
const trpcContext = createTrpcContext({
  authenticator: new JwtAuthenticator(new JwtConfig(secret)),
  dangerouslyAllowUnguardedProcedures: true,
});

type Handler = (authorization: string | undefined) => Promise<Response>;
const serve =
  (router: typeof bare | typeof portcullis, path: string, context: 'bare' | 'portcullis') =>
  (authorization: string | undefined): Promise<Response> =>
    fetchRequestHandler({
      endpoint: '/trpc',
      req: new Request(
        `http://localhost/trpc/${path}`,
        authorization === undefined ? {} : { headers: { authorization } },
      ),
      router,
      createContext: context === 'bare' ? ({ req }) => ({ req }) : trpcContext,
    } as Parameters<typeof fetchRequestHandler>[0]);

const rows: Record<string, Handler> =
  mode === 'clean'
    ? {
        'bare-plain': serve(bare, 'plain', 'bare'),
        'bare-noop': serve(bare, 'noop', 'bare'),
        'bare-handwritten': serve(bare, 'handwritten', 'bare'),
        'portcullis-plain': serve(portcullis, 'plain', 'portcullis'),
        'portcullis-lean': serve(portcullis, 'lean', 'portcullis'),
      }
    : {
        'bare-plain': serve(bare, 'plain', 'bare'),
        'portcullis-lean': serve(portcullis, 'lean', 'portcullis'),
        'portcullis-context': serve(portcullis, 'guarded', 'portcullis'),
      };

async function answers(
  handler: Handler,
  authorization: string | undefined,
  status: number,
  body?: string,
) {
  const response = await handler(authorization);
  const text = await response.text();
  if (response.status !== status || (body !== undefined && !text.includes(body))) {
    throw new Error(`answered ${response.status} ${text}, not ${status} ${body ?? ''}`);
  }
}

/** Every guard answers as it must before anything is timed. */
async function prove(): Promise<void> {
  const bearer = (value: string) => `Bearer ${value}`;
  const guarded: Handler[] = [rows['bare-handwritten'], rows['portcullis-lean']].filter(
    (handler) => handler !== undefined,
  );
  if (mode === 'context') guarded.push(rows['portcullis-context']!);
  for (const handler of guarded) {
    await answers(handler, bearer(token), 200, 'world');
    await answers(handler, undefined, 401);
    await answers(handler, bearer(env('FORGED')), 401);
    await answers(handler, bearer(env('NO_ROLE')), 403);
  }
  for (const [name, handler] of Object.entries(rows)) {
    await answers(handler, bearer(token), 200, 'world').catch((error: unknown) => {
      throw new Error(`${name}: ${String(error)}`);
    });
  }
  // The SecurityContext holds the user with it on, and stays empty with it off.
  await answers(serve(portcullis, 'leanSeen', 'portcullis'), bearer(token), 200, '"user":null');
  if (mode === 'context') {
    await answers(
      serve(portcullis, 'guardedSeen', 'portcullis'),
      bearer(token),
      200,
      '"user":"user"',
    );
  }
}

async function time(handler: Handler, calls: number): Promise<{ cpu: number; wall: number }> {
  const authorization = `Bearer ${token}`;
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const response = await handler(authorization);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`answered ${response.status} while timed`);
  }
  const wall = Number(process.hrtime.bigint() - start) / 1000 / calls;
  const { user, system } = process.cpuUsage(cpuBefore);
  return { cpu: (user + system) / calls, wall };
}

try {
  await prove();
  // Node 24's AsyncLocalStorage runs on AsyncContextFrame; the older one on promise hooks.
  const hooks =
    typeof (AsyncLocalStorage.prototype as { _enable?: unknown })._enable === 'function';
  process.send?.({
    ready: true,
    rows: Object.keys(rows),
    version: process.version,
    storage: hooks ? 'promise hooks' : 'AsyncContextFrame',
  });
} catch (error) {
  process.send?.({ error: `security check failed (${mode}): ${String(error)}` }, () =>
    process.exit(1),
  );
}
process.on('message', (message: { run?: string; calls?: number; stop?: boolean }) => {
  if (message.stop === true) process.exit(0);
  const handler = message.run === undefined ? undefined : rows[message.run];
  if (handler === undefined || message.calls === undefined) {
    process.send?.({ error: `no row ${String(message.run)}` });
    return;
  }
  time(handler, message.calls).then(
    (result) => process.send?.({ row: message.run, ...result }),
    (error: unknown) => process.send?.({ error: `${String(message.run)}: ${String(error)}` }),
  );
});
process.on('disconnect', () => process.exit(0));
