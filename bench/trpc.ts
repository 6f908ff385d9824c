/**
 * A guarded tRPC query against the same query unguarded (and behind a do-nothing
 * middleware, tRPC's own cost), through the tRPC HTTP adapter, on one server
 * process, in alternating rounds.
 */
import { fmt, load, startServer, type LoadResult } from './lib.js';

const BASIC = `Basic ${Buffer.from('user:user-password').toString('base64')}`;
const PROCEDURES = [
  ['unguarded query', '/plain'],
  ['do-nothing middleware', '/noop'],
  ["secured('USER') guard", '/guarded'],
] as const;

export interface TrpcRow {
  readonly name: string;
  readonly best: LoadResult;
}

export async function benchTrpc(options: {
  seconds: number;
  rounds: number;
  warmup: number;
}): Promise<TrpcRow[]> {
  const server = await startServer('./servers/trpc.js', {});
  try {
    const denied = await fetch(`${server.origin}/guarded`);
    await denied.arrayBuffer();
    if (denied.status !== 401)
      throw new Error(`guard is off: ${denied.status} without credentials`);
    const best = new Map<string, LoadResult>();
    for (const [, path] of PROCEDURES) {
      await load(server, path, { authorization: BASIC }, options.warmup);
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const [name, path] of PROCEDURES) {
        const result = await load(server, path, { authorization: BASIC }, options.seconds);
        if (result.non2xx > 0 || result.errors > 0) {
          throw new Error(`${name}: ${result.non2xx} non-2xx and ${result.errors} errors`);
        }
        const current = best.get(name);
        if (!current || result.rps > current.rps) best.set(name, result);
      }
    }
    return PROCEDURES.map(([name]) => ({ name, best: best.get(name)! }));
  } finally {
    await server.stop();
  }
}

export function printTrpc(rows: TrpcRow[]): void {
  const baseline = rows[0]!.best;
  console.log(
    '\n## tRPC query over the HTTP adapter (Basic credential, cached), best of the rounds\n',
  );
  console.log('| procedure | req/s | vs unguarded | p99 ms | server CPU µs/req |');
  console.log('|---|---:|---:|---:|---:|');
  for (const { name, best } of rows) {
    console.log(
      `| ${name} | ${fmt(best.rps)} | ${fmt(best.rps / baseline.rps, 3)} | ${fmt(best.p99)} | ${fmt(best.cpuPerRequestMicros, 1)} |`,
    );
  }
  const guarded = rows[rows.length - 1]!.best;
  const added = guarded.cpuPerRequestMicros / baseline.cpuPerRequestMicros - 1;
  const noop = rows[1]!.best;
  const overNoop = guarded.cpuPerRequestMicros / noop.cpuPerRequestMicros - 1;
  console.log(
    `\n- tRPC guard: adds ${fmt(added * 100, 1)}% server CPU per request to the unguarded ` +
      `procedure, goal under 5%: ${added < 0.05 ? 'achieved' : 'not achieved'} ` +
      `(a do-nothing tRPC middleware alone adds ${fmt((noop.cpuPerRequestMicros / baseline.cpuPerRequestMicros - 1) * 100, 1)}%; ` +
      `the guard over it: ${fmt(overNoop * 100, 1)}%).`,
  );
}
