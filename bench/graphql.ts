/**
 * One query selecting 100 scalar fields, 10 of them protected, executed in one
 * process through graphql-js's `execute` on: (a) the bare schema, (b) the same
 * SDL through portcullis's security directives, (c) graphql-shield with the
 * equivalent rules (graphql-middleware's `applyMiddleware`), and (d) portcullis
 * with the all-or-nothing `withOperationCheck`. The variants run interleaved, in
 * rounds; each keeps its best round (and its median, for the noise).
 */
import { deepStrictEqual } from 'node:assert/strict';
import type { ExecutionResult, GraphQLSchema } from 'graphql';
import { AuthenticatedUser, User } from 'portcullis';
import {
  FIELDS,
  INDEXES,
  ITEM,
  PROTECTED,
  QUERY,
  loadGraphql,
  name,
  protectedBy,
  type Context,
  type GraphqlBench,
} from './graphql-schema.js';
import { randomBytes } from 'node:crypto';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { fmt, load, startServer, type LoadResult, type ServerProcess } from './lib.js';

const ROUNDS = 7;
/** Wall time of one variant in one round, in nanoseconds (iterations calibrated per variant). */
const ROUND_NS = 300e6;

const user = AuthenticatedUser.from(
  new User('alice', '').withRoles(['USER']).withAuthorities(['posts:read']),
);

type Run = (contextValue: Context) => unknown;

interface Variant {
  readonly name: string;
  readonly run: Run;
  /** Queries as an anonymous caller (10 denials) instead of the user who may see all. */
  readonly anonymous: boolean;
  /** Whether it is the portcullis directives alone (checked for synchronous results). */
  readonly directives: boolean;
}

/** The SDL (identical for every variant), the document, and the variants. */
function setup(lib: GraphqlBench) {
  const { document, bare, secured, shielded } = lib;
  const shieldContextual = shielded('contextual');
  const shieldNoCache = shielded('no_cache');
  const on =
    (s: GraphQLSchema): Run =>
    (contextValue) =>
      lib.execute({ schema: s, document, contextValue });
  const checked = lib.withOperationCheck(lib.execute);
  const variant = (label: string, run: Run, anonymous = false, directives = false): Variant => ({
    name: label,
    run,
    anonymous,
    directives,
  });
  const variants = [
    variant('(a) no security', on(bare)),
    variant('(b) portcullis directives', on(secured), false, true),
    variant("(c) graphql-shield, cache 'contextual'", on(shieldContextual)),
    variant("(c′) graphql-shield, cache 'no_cache'", on(shieldNoCache)),
    variant('(d) portcullis + withOperationCheck', (contextValue) =>
      checked({ schema: secured, document, contextValue }),
    ),
    variant('(b) portcullis, anonymous: 10 denials', on(secured), true, true),
    variant("(c) graphql-shield 'contextual', anonymous: 10 denials", on(shieldContextual), true),
  ];
  return { variants, checked, secured, document };
}

const isPromise = (value: unknown): value is Promise<unknown> => value instanceof Promise;

/** A fresh context per query, as a server makes one per request (shield caches in it). */
const contextOf = (variant: Variant): Context => ({ user: variant.anonymous ? null : user });

/**
 * Checks every variant before anything is timed: the same 100 fields for the
 * user; for an anonymous caller, errors on exactly the 10 protected fields (the 90
 * others still resolve), and the operation check refusing the whole operation.
 * Returns whether the portcullis schema answered synchronously.
 */
async function verify({
  variants,
  checked,
  secured,
  document,
}: ReturnType<typeof setup>): Promise<boolean> {
  const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;
  const open = Object.fromEntries(
    INDEXES.map((i) => [name(i), protectedBy(i) === undefined ? i : null]),
  );
  const deniedPaths = PROTECTED.map((i) => `item.${name(i)}`);
  let synchronous = true;
  for (const variant of variants) {
    const returned = variant.run(contextOf(variant));
    if (variant.directives && isPromise(returned)) synchronous = false;
    const result = (await returned) as ExecutionResult;
    if (!variant.anonymous) {
      deepStrictEqual(plain(result), { data: { item: ITEM } }, variant.name);
      continue;
    }
    const paths = (result.errors ?? []).map((e) => e.path?.join('.') ?? '').sort();
    deepStrictEqual(paths, deniedPaths, `${variant.name}: denied fields`);
    deepStrictEqual(plain(result.data), { item: open }, `${variant.name}: data`);
    if (variant.directives) {
      const codes = new Set(result.errors?.map((e) => e.extensions['code']));
      deepStrictEqual([...codes], ['UNAUTHENTICATED'], `${variant.name}: codes`);
    }
  }
  const refused = await checked({ schema: secured, document, contextValue: { user: null } });
  if ('data' in refused || refused.errors?.length !== PROTECTED.length) {
    throw new Error('withOperationCheck did not refuse the anonymous operation');
  }
  return synchronous;
}

/** Nanoseconds per query over `iterations` queries, one at a time (awaited when async). */
async function timeQueries(variant: Variant, iterations: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    const result = variant.run(contextOf(variant));
    if (isPromise(result)) await result;
  }
  return Number(process.hrtime.bigint() - start) / iterations;
}

export interface GraphqlRow {
  readonly name: string;
  readonly bestNs: number;
  readonly medianNs: number;
}

export interface GraphqlResult {
  readonly rows: readonly GraphqlRow[];
  /** Whether `execute` on the portcullis schema returned a plain result (no promise). */
  readonly synchronous: boolean;
  /** NODE_ENV when graphql-js loaded. */
  readonly mode: string;
}

export async function benchGraphql(): Promise<GraphqlResult> {
  const lib = await loadGraphql();
  const bench = setup(lib);
  const synchronous = await verify(bench);
  // Warm up, and calibrate each variant to about ROUND_NS per round.
  const iterations = new Map<Variant, number>();
  for (const variant of bench.variants) {
    await timeQueries(variant, 300);
    const ns = await timeQueries(variant, 300);
    iterations.set(variant, Math.max(100, Math.round(ROUND_NS / ns)));
  }
  const samples = new Map<Variant, number[]>(bench.variants.map((v) => [v, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of bench.variants) {
      samples.get(variant)!.push(await timeQueries(variant, iterations.get(variant)!));
    }
  }
  const rows = bench.variants.map((variant) => {
    const sorted = samples.get(variant)!.sort((x, y) => x - y);
    return {
      name: variant.name,
      bestNs: sorted[0]!,
      medianNs: sorted[Math.floor(sorted.length / 2)]!,
    };
  });
  return { rows, synchronous, mode: lib.mode };
}

export function printGraphql({ rows, synchronous, mode }: GraphqlResult): void {
  const us = (ns: number): string => fmt(ns / 1000, 1);
  const bare = rows[0]!;
  console.log(
    `\n## GraphQL: one query of ${FIELDS} fields, ${PROTECTED.length} protected, ` +
      `graphql-js execute (NODE_ENV=${mode}), µs per query, best of ${ROUNDS} rounds\n`,
  );
  console.log('| variant | µs/query | median | overhead over (a), µs | median overhead |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of rows) {
    const best = row === bare ? '–' : us(row.bestNs - bare.bestNs);
    const median = row === bare ? '–' : us(row.medianNs - bare.medianNs);
    console.log(`| ${row.name} | ${us(row.bestNs)} | ${us(row.medianNs)} | ${best} | ${median} |`);
  }
  const [, portcullis, shieldContextual, shieldNoCache] = rows;
  const ratio = (of: 'bestNs' | 'medianNs', shield: GraphqlRow): string => {
    const value = (portcullis![of] - bare[of]) / (shield[of] - bare[of]);
    const shown = value <= 0 ? '≤ 0 (no overhead beyond the noise)' : fmt(value, 3);
    return `${shown}, goal ≤ 1/3 ${value <= 1 / 3 ? 'achieved' : 'not achieved'}`;
  };
  console.log(
    `\noverhead (b) / overhead (c, 'contextual'): ${ratio('bestNs', shieldContextual!)} ` +
      `(medians: ${ratio('medianNs', shieldContextual!)}); ` +
      `against (c′, 'no_cache'): ${ratio('bestNs', shieldNoCache!)}.`,
  );
  console.log(
    `(b) answers synchronously (execute returns no promise): ${synchronous ? 'yes' : 'NO'}.`,
  );
}

type HttpStack = 'bare' | 'bare-auth' | 'portcullis' | 'shield';
const HTTP_STACKS: readonly (readonly [HttpStack, string])[] = [
  ['bare', '(a) no security'],
  ['bare-auth', '(a′) no authorization, the same JWT context'],
  ['portcullis', '(b) portcullis directives, JWT context'],
  ['shield', "(c) graphql-shield 'contextual', same JWT context"],
];

export interface GraphqlHttpRow {
  readonly name: string;
  readonly best: LoadResult;
}

/** POSTs the query; the parsed answer and its status. */
async function post(server: ServerProcess, token: string | undefined) {
  const response = await fetch(`${server.origin}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ query: QUERY }),
  });
  const body = (await response.json()) as ExecutionResult;
  return { status: response.status, body };
}

/**
 * Proves each server before a window: the user gets all 100 fields without errors;
 * on the secured ones no token, and a forged one, get errors on exactly the 10
 * protected fields.
 */
async function checkHttp(
  stack: HttpStack,
  server: ServerProcess,
  token: string,
  forged: string,
): Promise<void> {
  const own = await post(server, token);
  if (own.status !== 200 || own.body.errors !== undefined) {
    throw new Error(`graphql ${stack}: the user's query failed (${String(own.status)})`);
  }
  deepStrictEqual(JSON.parse(JSON.stringify(own.body.data)), { item: ITEM }, stack);
  if (stack === 'bare' || stack === 'bare-auth') return;
  for (const credential of [undefined, forged]) {
    const { body } = await post(server, credential);
    if (body.errors?.length !== PROTECTED.length) {
      throw new Error(`security check failed: graphql ${stack} did not deny the 10 fields`);
    }
  }
}

/**
 * The query over HTTP (graphql-http, node `http`) with a bearer token: each variant a
 * server process loaded by autocannon in alternating rounds, the round with the
 * least server CPU per request kept.
 */
export async function benchGraphqlHttp(options: {
  seconds: number;
  rounds: number;
  warmup: number;
}): Promise<GraphqlHttpRow[]> {
  const secret = randomBytes(32).toString('base64url');
  const token = await new JwtAuthenticator(new JwtConfig(secret)).generateToken(
    new User('alice', '').withRoles(['USER']).withAuthorities(['posts:read']),
  );
  const forged = await new JwtAuthenticator(new JwtConfig(randomBytes(32))).generateToken(
    new User('alice', '').withRoles(['USER']).withAuthorities(['posts:read']),
  );
  const servers = new Map<HttpStack, ServerProcess>();
  try {
    for (const [stack] of HTTP_STACKS) {
      servers.set(
        stack,
        await startServer('./servers/graphql.js', { STACK: stack, JWT_SECRET: secret }),
      );
    }
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const request = { method: 'POST', body: JSON.stringify({ query: QUERY }) } as const;
    for (const [stack] of HTTP_STACKS) {
      await checkHttp(stack, servers.get(stack)!, token, forged);
      await load(servers.get(stack)!, '/graphql', headers, options.warmup, 16, request);
    }
    const best = new Map<HttpStack, LoadResult>();
    for (let round = 0; round < options.rounds; round++) {
      for (const [stack, label] of HTTP_STACKS) {
        const server = servers.get(stack)!;
        await checkHttp(stack, server, token, forged);
        const result = await load(server, '/graphql', headers, options.seconds, 16, request);
        if (result.non2xx > 0 || result.errors > 0) {
          throw new Error(`${label}: ${result.non2xx} non-2xx and ${result.errors} errors`);
        }
        const current = best.get(stack);
        if (!current || result.cpuPerRequestMicros < current.cpuPerRequestMicros) {
          best.set(stack, result);
        }
      }
    }
    return HTTP_STACKS.map(([stack, label]) => ({ name: label, best: best.get(stack)! }));
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
}

export function printGraphqlHttp(rows: readonly GraphqlHttpRow[]): void {
  const [bare, authenticated, portcullis, shield] = rows;
  if (!bare || !authenticated || !portcullis || !shield) return;
  const cpu = (row: GraphqlHttpRow) => row.best.cpuPerRequestMicros;
  console.log(
    `\n## GraphQL over HTTP (graphql-http, node \`http\`), the same query with a bearer token, ` +
      'the round with the least server CPU per request\n',
  );
  console.log(
    '| variant | req/s | p99 ms | server CPU µs/req | overhead over (a), µs | over (a′), µs |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const over = (base: GraphqlHttpRow) =>
      row === bare || row === base ? '–' : fmt(cpu(row) - cpu(base), 1);
    console.log(
      `| ${row.name} | ${fmt(row.best.rps)} | ${fmt(row.best.p99)} | ${fmt(cpu(row), 1)} | ` +
        `${over(bare)} | ${row === authenticated ? '–' : over(authenticated)} |`,
    );
  }
  const ratio = (base: GraphqlHttpRow) => {
    const ours = cpu(portcullis) - cpu(base);
    const value = ours / (cpu(shield) - cpu(base));
    return `${ours <= 0 ? '≤ 0' : fmt(value, 3)}, goal ≤ 1/3: ${value <= 1 / 3 ? 'achieved' : 'not achieved'}`;
  };
  console.log(
    `\n- GraphQL over HTTP, authorization (over (a′), the same authentication in all three): ` +
      `overhead (b) / overhead (c) = ${ratio(authenticated)}; the whole security set-up, ` +
      `authentication included (over (a)): ${ratio(bare)}.`,
  );
}
