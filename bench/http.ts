/**
 * The example server's `/profile` with a cached HTTP Basic credential (Argon2id
 * behind a delegating encoder), against the same server with security off, in
 * alternating rounds in one run.
 */
import { fmt, load, startServer, type LoadResult } from './lib.js';

const BASIC = `Basic ${Buffer.from('user:user-password').toString('base64')}`;

export interface HttpOptions {
  readonly seconds: number;
  readonly rounds: number;
  readonly warmup: number;
}

export interface HttpRow {
  readonly name: string;
  readonly best: LoadResult;
}

/** Fetches `url` and throws unless it answers `status`. */
export async function expectStatus(url: string, headers: Record<string, string>, status: number) {
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  if (response.status !== status) {
    throw new Error(
      `security check failed: ${url} answered ${response.status}, expected ${status}`,
    );
  }
}

export async function benchHttp(options: HttpOptions): Promise<HttpRow[]> {
  const secure = await startServer('./servers/example.js', { MODE: 'secure' });
  const bare = await startServer('./servers/example.js', { MODE: 'bare' });
  try {
    const url = (origin: string) => `${origin}/profile`;
    const best: Record<string, LoadResult | undefined> = {};
    for (const [name, server] of [
      ['bare node http (security off)', bare],
      ['portcullis: firewall + Basic (cached Argon2id) + rules + headers', secure],
    ] as const) {
      await load(server, '/profile', { authorization: BASIC }, options.warmup);
      best[name] = undefined;
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const [name, server] of [
        ['bare node http (security off)', bare],
        ['portcullis: firewall + Basic (cached Argon2id) + rules + headers', secure],
      ] as const) {
        if (server === secure) {
          // Prove security is on before each measured window.
          await expectStatus(url(secure.origin), { authorization: BASIC }, 200);
          await expectStatus(url(secure.origin), {}, 401);
          await expectStatus(
            url(secure.origin),
            { authorization: `Basic ${Buffer.from('user:wrong').toString('base64')}` },
            401,
          );
        }
        const result = await load(server, '/profile', { authorization: BASIC }, options.seconds);
        if (result.non2xx > 0 || result.errors > 0) {
          throw new Error(
            `${name}: ${result.non2xx} non-2xx and ${result.errors} errors under load`,
          );
        }
        const current = best[name];
        if (!current || result.rps > current.rps) best[name] = result;
      }
    }
    return Object.entries(best).map(([name, result]) => ({ name, best: result! }));
  } finally {
    await Promise.all([secure.stop(), bare.stop()]);
  }
}

export function printHttp(rows: HttpRow[]): void {
  const baseline = rows[0]!.best;
  console.log('\n## GET /profile, example server (best of the rounds)\n');
  console.log('| server | req/s | vs bare | p99 ms | server CPU µs/req | overhead µs/req |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const { name, best } of rows) {
    console.log(
      `| ${name} | ${fmt(best.rps)} | ${fmt(best.rps / baseline.rps, 2)} | ${fmt(best.p99)} | ${fmt(best.cpuPerRequestMicros, 1)} | ${fmt(best.cpuPerRequestMicros - baseline.cpuPerRequestMicros, 1)} |`,
    );
  }
}
