/**
 * NestJS on Express, four server processes (servers/nestjs.ts) loaded in alternating
 * rounds with the same bearer token on `GET /posts`: no security; the hand-written
 * global `CanActivate` guard (jose's `jwtVerify`, the role and the authority checked);
 * `PortcullisModule` with `@PreAuthorize("hasRole('USER') and hasAuthority('posts:read')")`
 * over the JWT authenticator, its verified-token cache on (the default) and off, and
 * with `securityContext: false`. Before
 * anything is timed every guarded server must answer 200 to the token, 401 to none and
 * to a forged one, and 403 to a token without the authority. Goal (issue 21): the
 * portcullis route no slower than the hand-written guard.
 */
import { randomBytes } from 'node:crypto';
import { User } from 'portcullis';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { fmt, load, startServer, type LoadResult, type ServerProcess } from './lib.js';

type Stack = 'bare' | 'handwritten' | 'portcullis' | 'portcullis-lean' | 'portcullis-no-cache';
const ROWS: readonly (readonly [name: string, stack: Stack])[] = [
  ['Nest, no security', 'bare'],
  ['Nest + hand-written CanActivate guard (jose jwtVerify, role + authority)', 'handwritten'],
  ['Nest + PortcullisModule, @PreAuthorize (JWT cache on, the default)', 'portcullis'],
  ['Nest + PortcullisModule, @PreAuthorize, securityContext: false', 'portcullis-lean'],
  ['Nest + PortcullisModule, @PreAuthorize (JWT cache off)', 'portcullis-no-cache'],
];

export interface NestRow {
  readonly name: string;
  readonly best: LoadResult;
}

async function expectStatus(
  server: ServerProcess,
  token: string | undefined,
  status: number,
): Promise<void> {
  const response = await fetch(`${server.origin}/posts`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  const body = await response.text();
  const ok =
    response.status === status &&
    (status !== 200 || (JSON.parse(body) as { username?: unknown }).username === 'user');
  if (!ok) {
    throw new Error(`security check failed: /posts answered ${response.status}, not ${status}`);
  }
}

export async function benchNestjs(options: {
  seconds: number;
  rounds: number;
  warmup: number;
}): Promise<NestRow[]> {
  const secret = randomBytes(32).toString('base64url');
  const jwt = new JwtAuthenticator(new JwtConfig(secret));
  const token = await jwt.generateToken(new User('user', '', ['USER'], ['posts:read']));
  const noAuthority = await jwt.generateToken(new User('guest', '', ['USER'], []));
  const forged = await new JwtAuthenticator(new JwtConfig(randomBytes(32))).generateToken(
    new User('user', '', ['USER'], ['posts:read']),
  );
  const servers = new Map<Stack, ServerProcess>();
  try {
    for (const [, stack] of ROWS) {
      servers.set(
        stack,
        await startServer('./servers/nestjs.js', { STACK: stack, JWT_SECRET: secret }),
      );
    }
    const check = async () => {
      for (const [stack, server] of servers) {
        if (stack === 'bare') continue;
        await expectStatus(server, token, 200);
        await expectStatus(server, undefined, 401);
        await expectStatus(server, forged, 401);
        await expectStatus(server, noAuthority, 403);
      }
    };
    await check();
    const headers = { authorization: `Bearer ${token}` };
    for (const server of servers.values()) await load(server, '/posts', headers, options.warmup);
    const best = new Map<string, LoadResult>();
    for (let round = 0; round < options.rounds; round++) {
      await check();
      for (const [name, stack] of ROWS) {
        const result = await load(servers.get(stack)!, '/posts', headers, options.seconds);
        if (result.non2xx > 0 || result.errors > 0) {
          throw new Error(`${name}: ${result.non2xx} non-2xx and ${result.errors} errors`);
        }
        // The round with the least server CPU per request: on a shared machine the
        // other rounds only add noise to the same work.
        const current = best.get(name);
        if (!current || result.cpuPerRequestMicros < current.cpuPerRequestMicros) {
          best.set(name, result);
        }
      }
    }
    return ROWS.map(([name]) => ({ name, best: best.get(name)! }));
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
}

export function printNestjs(rows: NestRow[]): void {
  const baseline = rows[0]!.best;
  console.log(
    '\n## NestJS (Express), `GET /posts` with a bearer token (HS256), the round with the least server CPU per request\n',
  );
  console.log('| stack | req/s | vs no security | p99 ms | server CPU µs/req |');
  console.log('|---|---:|---:|---:|---:|');
  for (const { name, best } of rows) {
    console.log(
      `| ${name} | ${fmt(best.rps)} | ${fmt(best.rps / baseline.rps, 3)} | ${fmt(best.p99)} | ${fmt(best.cpuPerRequestMicros, 1)} |`,
    );
  }
  const [, handwritten, cached, lean, uncached] = rows.map((row) => row.best.cpuPerRequestMicros);
  const verdict = (micros: number) =>
    `${fmt(micros, 1)} µs against ${fmt(handwritten!, 1)} µs: ${micros <= handwritten! ? 'achieved' : 'not achieved'}`;
  console.log(
    `\n- Goal: \`@PreAuthorize\` no slower than the hand-written guard (server CPU per request). ` +
      `With the JWT cache on (the default) ${verdict(cached!)}; with \`securityContext: false\` ` +
      `${verdict(lean!)}; with the cache off (one verification per request, as the ` +
      `hand-written guard) ${verdict(uncached!)}.`,
  );
}
