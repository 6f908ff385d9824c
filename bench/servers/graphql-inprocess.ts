/**
 * A child process of the in-process GraphQL benchmark (bench/graphql-inprocess.ts):
 * it serves the benchmark schema (graphql-schema.ts: one query of 100 fields, 10
 * protected) through graphql-http's Fetch handler (`createHandler` of
 * `graphql-http/lib/use/fetch`: a new `Request` per call, POST with the JSON body of
 * the query and the bearer token, its `Response` body read; no socket), and times
 * the rows its runner asks for, one at a time, over IPC (inprocess.ts's protocol).
 *
 * The rows:
 *
 * - `bare`: the bare schema, no authentication (the context holds no user);
 * - `bare-auth`: the bare schema, the user from portcullis's `createGraphQLContext`
 *   over its JWT authenticator (verified-token cache on): the authentication both
 *   secured rows share;
 * - `portcullis`: the security directives' schema, the same context;
 * - `portcullis-lean`: the directives with `securityContext: false`, the same context;
 * - `shield`: graphql-shield (`cache: 'contextual'`) with the same rules, the same context.
 *
 * The directives run each protected field's resolver in `SecurityContext.run` (an
 * AsyncLocalStorage), which on a runtime whose AsyncLocalStorage runs on promise
 * hooks (Node 20 and 22) slows every later promise of the process, whatever row it
 * belongs to. So `MODE` says which rows the process may run: `clean` (no
 * `SecurityContext` ever) `bare`, `bare-auth`, `portcullis-lean` and `shield`; `context` the same rows
 * again (each schema warms graphql-js's code its own way: with other rows, a process
 * of one kind ran 75 µs faster than one of the other on every row) and `portcullis`.
 *
 * Tokens are HS256, signed with `JWT_SECRET`; `TOKEN` (the user with role USER and
 * authority posts:read) is the one timed, `FORGED` is signed with another key.
 * Before it reports ready, every row must answer the user all 100 fields without an
 * error; the secured rows must answer an anonymous request (no token) and `FORGED`
 * with errors on exactly the 10 protected fields (the 90 others resolved; the
 * directives' errors `UNAUTHENTICATED`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { deepStrictEqual } from 'node:assert/strict';
import { register } from 'node:module';
import util from 'node:util';
import type { ExecutionResult } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/fetch';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import {
  INDEXES,
  ITEM,
  PROTECTED,
  QUERY,
  loadGraphql,
  name,
  protectedBy,
} from '../graphql-schema.js';

const env = (key: string): string => {
  const value = process.env[key];
  if (value === undefined) throw new Error(`${key} is required`);
  return value;
};
const secret = env('JWT_SECRET');
const token = env('TOKEN');
const mode = env('MODE');
if (mode !== 'clean' && mode !== 'context') throw new Error(`unknown MODE ${mode}`);

// graphql-shield 7.6.5 (its last release) imports `isUndefined` from `util`, which
// Node 23 removed: there the module would not load. Its import of `util` is resolved
// to `node:util` plus that function, so graphql-shield runs unchanged on Node 24.
if (typeof (util as { isUndefined?: unknown }).isUndefined !== 'function') {
  const data = (source: string) => `data:text/javascript,${encodeURIComponent(source)}`;
  const shim = data(
    "export * from 'node:util'; export { default } from 'node:util'; " +
      'export const isUndefined = (value) => value === undefined;',
  );
  register(
    data(
      'export async function resolve(specifier, context, next) {\n' +
        "  if ((specifier === 'util' || specifier === 'node:util') &&\n" +
        "      context.parentURL?.includes('/graphql-shield/'))\n" +
        `    return { url: ${JSON.stringify(shim)}, shortCircuit: true };\n` +
        '  return next(specifier, context);\n' +
        '}\n',
    ),
  );
}

const lib = await loadGraphql();
const security = lib.createGraphQLContext({
  authenticator: new JwtAuthenticator(new JwtConfig(secret)),
});
type Fetch = (request: Request) => Promise<Response>;
const authenticated = (schema: typeof lib.bare): Fetch =>
  createHandler({ schema, context: (req) => security(req) });

const handlers: Record<string, Fetch> =
  mode === 'clean'
    ? {
        bare: createHandler({ schema: lib.bare, context: () => ({ user: null }) }),
        'bare-auth': authenticated(lib.bare),
        'portcullis-lean': authenticated(lib.securedLean),
        shield: authenticated(lib.shielded('contextual')),
      }
    : {
        // The clean process's rows again (each schema warms graphql-js's code differently,
        // so both kinds run the same ones), and the directives by default.
        bare: createHandler({ schema: lib.bare, context: () => ({ user: null }) }),
        'bare-auth': authenticated(lib.bare),
        'portcullis-lean': authenticated(lib.securedLean),
        shield: authenticated(lib.shielded('contextual')),
        portcullis: authenticated(lib.secured),
      };

const body = JSON.stringify({ query: QUERY });
const call = (handler: Fetch, authorization: string | undefined): Promise<Response> =>
  handler(
    new Request('http://localhost/graphql', {
      method: 'POST',
      headers:
        authorization === undefined
          ? { 'content-type': 'application/json' }
          : { 'content-type': 'application/json', authorization },
      body,
    }),
  );

async function query(row: string, authorization: string | undefined): Promise<ExecutionResult> {
  const response = await call(handlers[row]!, authorization);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${row} answered ${response.status} ${text}`);
  return JSON.parse(text) as ExecutionResult;
}

/** Every row answers as it must before anything is timed. */
async function prove(): Promise<void> {
  const bearer = (value: string) => `Bearer ${value}`;
  const open = Object.fromEntries(
    INDEXES.map((i) => [name(i), protectedBy(i) === undefined ? i : null]),
  );
  const deniedPaths = PROTECTED.map((i) => `item.${name(i)}`);
  for (const row of Object.keys(handlers)) {
    const own = await query(row, bearer(token));
    deepStrictEqual(own, { data: { item: ITEM } }, `${row}: the user's answer`);
    if (row === 'bare' || row === 'bare-auth') {
      deepStrictEqual(await query(row, undefined), { data: { item: ITEM } }, `${row}: anonymous`);
      continue;
    }
    for (const credential of [undefined, bearer(env('FORGED'))]) {
      const who = credential === undefined ? 'anonymous' : 'forged token';
      const result = await query(row, credential);
      const paths = (result.errors ?? []).map((e) => e.path?.join('.') ?? '').sort();
      deepStrictEqual(paths, deniedPaths, `${row}, ${who}: denied fields`);
      deepStrictEqual(result.data, { item: open }, `${row}, ${who}: data`);
      if (row === 'portcullis' || row === 'portcullis-lean') {
        const codes = new Set(result.errors?.map((e) => e.extensions['code']));
        deepStrictEqual([...codes], ['UNAUTHENTICATED'], `${row}, ${who}: codes`);
      }
    }
  }
}

async function time(handler: Fetch, calls: number): Promise<{ cpu: number; wall: number }> {
  const authorization = `Bearer ${token}`;
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const response = await call(handler, authorization);
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
    rows: Object.keys(handlers),
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
  const handler = message.run === undefined ? undefined : handlers[message.run];
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
