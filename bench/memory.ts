/**
 * Memory under many distinct tokens: portcullis's full pipeline on node `http`
 * (servers/stacks.ts, `node-portcullis`: firewall, JWT with its verified-token
 * cache at its default bound of 10,000 entries, 100 URL rules, security headers),
 * run with `--expose-gc`, serves 1,000,000 requests carrying 100,000 distinct bearer
 * tokens of 100,000 distinct users, one in ten signed with another secret (answered
 * 401, and never cached). The server's heap after a full collection is read with an
 * empty cache, with the cache filled to its bound, and after 500,000 and 1,000,000
 * requests: a bounded cache keeps the last two at the level of the full one.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { User } from 'portcullis';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { fmt, startServer, type ServerProcess } from './lib.js';

const DISTINCT = 100_000;
const REQUESTS = 1_000_000;
/** JwtConfig's default `cache.maxEntries`, which the benchmark server keeps. */
const CACHE_BOUND = 10_000;
const FORGED_EVERY = 10;
const PATH = '/api/profile';

export interface MemoryResult {
  readonly distinct: number;
  readonly requests: number;
  readonly cacheBound: number;
  /** Heap in use (bytes) after a full collection, at each point. */
  readonly heap: {
    readonly empty: number;
    readonly full: number;
    readonly half: number;
    readonly after: number;
  };
  readonly refused: number;
  readonly expectedRefused: number;
  readonly errors: number;
  readonly seconds: number;
}

/** Signs `count` HS256 access tokens, each for its own user, in batches. */
async function sign(jwt: JwtAuthenticator, count: number, offset: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let start = 0; start < count; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - start) }, (_, i) =>
      jwt.generateToken(new User(`user-${String(offset + start + i)}`, '', ['USER'], [])),
    );
    tokens.push(...(await Promise.all(batch)));
  }
  return tokens;
}

/** Checks the server really refuses: the right token 200, a foreign one and none 401. */
async function check(server: ServerProcess, valid: string, forged: string): Promise<void> {
  const cases: [string | undefined, number][] = [
    [valid, 200],
    [forged, 401],
    [undefined, 401],
  ];
  for (const [token, status] of cases) {
    const response = await fetch(`${server.origin}${PATH}`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    await response.arrayBuffer();
    if (response.status !== status) {
      throw new Error(`security check failed: ${String(response.status)}, expected ${status}`);
    }
  }
}

/** Sends `amount` requests, the bearer token of each taken in turn from `tokens`. */
async function send(server: ServerProcess, tokens: readonly string[], amount: number) {
  let next = 0;
  const result = await autocannon({
    url: `${server.origin}${PATH}`,
    connections: 16,
    amount,
    requests: [
      {
        method: 'GET',
        path: PATH,
        setupRequest: (request) => {
          const token = tokens[next++ % tokens.length] as string;
          return { ...request, headers: { authorization: `Bearer ${token}` } };
        },
      },
    ],
  });
  return { non2xx: result.non2xx, errors: result.errors, total: result.requests.total };
}

export async function benchMemory(): Promise<MemoryResult> {
  const secret = randomBytes(32).toString('base64url');
  const ours = new JwtAuthenticator(new JwtConfig(secret));
  const stranger = new JwtAuthenticator(new JwtConfig(randomBytes(32)));
  const valid = await sign(ours, DISTINCT - DISTINCT / FORGED_EVERY, 0);
  const forged = await sign(stranger, DISTINCT / FORGED_EVERY, valid.length);
  // Every tenth token is a forged one.
  const tokens: string[] = [];
  for (let i = 0, v = 0, f = 0; i < DISTINCT; i++) {
    tokens.push((i % FORGED_EVERY === FORGED_EVERY - 1 ? forged[f++] : valid[v++]) as string);
  }
  if (new Set(tokens).size !== DISTINCT) throw new Error('the tokens are not all distinct');
  const server = await startServer(
    './servers/stacks.js',
    { STACK: 'node-portcullis', JWT_SECRET: secret },
    ['--expose-gc'],
  );
  const started = process.hrtime.bigint();
  try {
    await check(server, valid[0] as string, forged[0] as string);
    // Warm-up on one token (one cache entry), then the heap with an empty cache.
    await send(server, [valid[0] as string], 20_000);
    const empty = await server.heapUsed();
    // The cache filled to its bound with valid tokens the main run uses too.
    await send(server, valid.slice(-CACHE_BOUND), CACHE_BOUND);
    const full = await server.heapUsed();
    const first = await send(server, tokens, REQUESTS / 2);
    const half = await server.heapUsed();
    const second = await send(server, tokens, REQUESTS / 2);
    const after = await server.heapUsed();
    return {
      distinct: DISTINCT,
      requests: first.total + second.total,
      cacheBound: CACHE_BOUND,
      heap: { empty, full, half, after },
      refused: first.non2xx + second.non2xx,
      expectedRefused: REQUESTS / FORGED_EVERY,
      errors: first.errors + second.errors,
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
    };
  } finally {
    await server.stop();
  }
}

export function printMemory(result: MemoryResult): void {
  const mib = (bytes: number) => fmt(bytes / 2 ** 20, 1);
  const { heap } = result;
  console.log(
    `\n## Memory: ${fmt(result.requests)} requests, ${fmt(result.distinct)} distinct bearer tokens\n`,
  );
  console.log(
    `Node http + portcullis full pipeline, JWT verified-token cache bounded at ` +
      `${fmt(result.cacheBound)} entries (the default); ${fmt(result.distinct)} tokens of as many ` +
      `users, one in ${String(FORGED_EVERY)} signed with another secret, sent in turn by 16 ` +
      `connections (${fmt(result.seconds, 0)} s). Server heap in use after a full collection:\n`,
  );
  console.log('| point | heap, MiB |');
  console.log('|---|---:|');
  console.log(`| before: cache empty (after a warm-up on one token) | ${mib(heap.empty)} |`);
  console.log(
    `| cache filled to its bound (${fmt(result.cacheBound)} tokens) | ${mib(heap.full)} |`,
  );
  console.log(`| after ${fmt(result.requests / 2)} requests | ${mib(heap.half)} |`);
  console.log(`| after ${fmt(result.requests)} requests | ${mib(heap.after)} |`);
  const footprint = heap.full - heap.empty;
  const beyond = Math.max(heap.half, heap.after) - heap.full;
  // Within the bound: past the full cache, at most a tenth of its footprint (or 1 MiB) more.
  const within = beyond <= Math.max(footprint / 10, 2 ** 20);
  console.log(
    `\n- refused (forged) requests: ${fmt(result.refused)} of ${fmt(result.expectedRefused)} ` +
      `expected; socket errors: ${fmt(result.errors)}.`,
  );
  console.log(
    `- memory: the full cache holds ${mib(footprint)} MiB (${fmt(footprint / result.cacheBound, 0)} ` +
      `bytes per cached token and its user); after ${fmt(result.requests)} requests the heap is ` +
      `${mib(beyond)} MiB past it (${fmt(heap.after - heap.empty)} bytes over the empty cache), ` +
      `goal within the configured cache bounds: ${within ? 'achieved' : 'not achieved'}.`,
  );
}
