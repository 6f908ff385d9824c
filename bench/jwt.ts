/**
 * JWT bearer verification, HS256. In one process pinned to one core
 * (servers/jwt-verify.ts): portcullis with the verified-token cache off and on,
 * `jose`'s `jwtVerify` alone, `fast-jwt` with and without its cache, and one
 * HMAC-SHA256 as the floor, each first proven to refuse forged tokens. Over HTTP: the
 * example's `GET /api/profile` with a bearer token (cache on and off) against the
 * same route with security off, each a server process loaded by autocannon.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { User } from 'portcullis';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { fmt, load, startServer, type LoadResult, type ServerProcess } from './lib.js';
import type { JwtMicroResult, JwtMicroRow } from './servers/jwt-verify.js';

/**
 * Runs servers/jwt-verify.ts in its own process, all its threads on core 1 when
 * `taskset` exists, and returns what it reports.
 */
async function benchVerification(): Promise<JwtMicroResult> {
  const path = fileURLToPath(new URL('./servers/jwt-verify.js', import.meta.url));
  const args = import.meta.url.endsWith('.ts')
    ? ['--import', 'tsx', path.replace(/\.js$/u, '.ts')]
    : [path];
  let pinned = true;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
  } catch {
    pinned = false;
  }
  const options = {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'] as ('ignore' | 'inherit' | 'ipc')[],
    env: { ...process.env, NODE_ENV: 'production' },
  };
  const child = pinned
    ? spawn('taskset', ['-c', '1', process.execPath, ...args], options)
    : spawn(process.execPath, args, options);
  const result = new Promise<JwtMicroResult>((resolve, reject) => {
    child.once('message', (message) => {
      resolve(message as JwtMicroResult);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      reject(new Error(`servers/jwt-verify.js exited (${String(code)}) without a result`));
    });
  });
  const exited = once(child, 'exit');
  const verification = await result;
  await exited;
  return verification;
}

export interface JwtHttpRow {
  readonly name: string;
  readonly best: LoadResult;
}

interface HttpTarget {
  readonly name: string;
  readonly server: ServerProcess;
  readonly secured: boolean;
}

/** Checks one answer of a secured server: 200 for the user, or 401 with the Bearer challenge. */
async function expect(
  url: string,
  authorization: string | undefined,
  status: 200 | 401,
  what: string,
): Promise<void> {
  const response = await fetch(url, {
    headers: authorization === undefined ? {} : { authorization },
  });
  const body = await response.text();
  const challenge = response.headers.get('www-authenticate') ?? '';
  const ok =
    response.status === status &&
    (status === 200
      ? (JSON.parse(body) as { username?: unknown }).username === 'user'
      : challenge.includes('Bearer realm=') &&
        (authorization === undefined || challenge.includes('error="invalid_token"')));
  if (!ok) {
    throw new Error(
      `security check failed: ${what} answered ${response.status}, expected ${status}`,
    );
  }
}

/** The example's access token for `user`, from its `POST /auth/login`. */
async function login(origin: string): Promise<string> {
  const response = await fetch(`${origin}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'user', password: 'user-password' }),
  });
  const body = (await response.json()) as { access_token?: unknown };
  if (response.status !== 200 || typeof body.access_token !== 'string') {
    throw new Error(`POST /auth/login answered ${response.status} without an access token`);
  }
  return body.access_token;
}

/** Bearer values a secured server must answer 401: a forged payload, another secret's token. */
async function forgeries(token: string): Promise<(readonly [string, string])[]> {
  const [header = '', payload = '', signature = ''] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as object;
  const escalated = Buffer.from(JSON.stringify({ ...claims, roles: ['ADMIN', 'USER'] }));
  const stranger = await new JwtAuthenticator(
    new JwtConfig(randomBytes(32)).issuer('portcullis-example'),
  ).generateToken(new User('user', '', ['USER'], ['posts:read']));
  return [
    ['a forged payload', `Bearer ${header}.${escalated.toString('base64url')}.${signature}`],
    ['a token of another secret', `Bearer ${stranger}`],
  ];
}

/**
 * The example's `GET /api/profile` with a bearer token (from its `POST /auth/login`):
 * the example as it is (verified-token cache on), the same application with the
 * cache off (`createApp({ jwtCache: false })`), and the example's routes with
 * security off.
 */
async function benchHttp(options: {
  seconds: number;
  rounds: number;
  warmup: number;
}): Promise<JwtHttpRow[]> {
  // One secret for both secured servers, so the example's token works on both.
  const env = { JWT_SECRET: randomBytes(32).toString('base64url') };
  const targets: HttpTarget[] = [];
  try {
    for (const [name, file, mode, secured] of [
      ['bare node http, example routes (security off)', 'example', 'bare', false],
      [
        'the example: firewall + Bearer or Basic + rules + headers, JWT cache on',
        'example',
        'secure',
        true,
      ],
      ['the same configuration, JWT cache off', 'example', 'secure-no-jwt-cache', true],
    ] as const) {
      const server = await startServer(`./servers/${file}.js`, { ...env, MODE: mode });
      targets.push({ name, secured, server });
    }
    const token = await login(targets[1]!.server.origin);
    const bearer = `Bearer ${token}`;
    const bad = await forgeries(token);
    const path = '/api/profile';
    for (const { server } of targets) {
      await load(server, path, { authorization: bearer }, options.warmup);
    }
    const best = new Map<HttpTarget, LoadResult>();
    for (let round = 0; round < options.rounds; round++) {
      for (const target of targets) {
        if (target.secured) {
          // Prove security is on before each measured window.
          const url = `${target.server.origin}${path}`;
          await expect(url, bearer, 200, `${target.name} with the token`);
          await expect(url, undefined, 401, `${target.name} without a token`);
          for (const [what, authorization] of bad) {
            await expect(url, authorization, 401, `${target.name} with ${what}`);
          }
        }
        const result = await load(target.server, path, { authorization: bearer }, options.seconds);
        if (result.non2xx > 0 || result.errors > 0) {
          throw new Error(`${target.name}: ${result.non2xx} non-2xx and ${result.errors} errors`);
        }
        const current = best.get(target);
        if (!current || result.rps > current.rps) best.set(target, result);
      }
    }
    return targets.map((target) => ({ name: target.name, best: best.get(target)! }));
  } finally {
    await Promise.all(targets.map((target) => target.server.stop()));
  }
}

export interface JwtResult {
  readonly verification: JwtMicroResult;
  readonly http: readonly JwtHttpRow[];
}

export async function benchJwt(options: {
  seconds: number;
  rounds: number;
  warmup: number;
}): Promise<JwtResult> {
  const verification = await benchVerification();
  return { verification, http: await benchHttp(options) };
}

export function printJwt({ verification, http }: JwtResult): void {
  const { rows: micro, refused, rounds } = verification;
  const us = (ns: number): string => fmt(ns / 1000, 2);
  const row = (prefix: string): JwtMicroRow => {
    const found = micro.find((r) => r.name.startsWith(prefix));
    if (!found) throw new Error(`no row ${prefix}`);
    return found;
  };
  const jose = row('jose jwtVerify, pre-imported CryptoKey');
  const floor = row('floor');
  console.log(
    `\n## JWT verification, HS256 (issuer, audience, expiry checked), one at a time in one ` +
      `process on one core, best of ${rounds} interleaved rounds\n`,
  );
  console.log(`Every verifier accepted the token and refused: ${refused.join('; ')}.\n`);
  console.log(
    '| verifier | µs/verification | median | verifications/s | vs jose (CryptoKey) | vs HMAC floor |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of micro) {
    console.log(
      `| ${r.name} | ${us(r.bestNs)} | ${us(r.medianNs)} | ${fmt(1e9 / r.bestNs)} | ` +
        `${fmt(r.bestNs / jose.bestNs, 2)}× | ${fmt(r.bestNs / floor.bestNs, 1)}× |`,
    );
  }
  const goal = (label: string, a: JwtMicroRow, b: JwtMicroRow, limit: number, text: string) => {
    const best = a.bestNs / b.bestNs;
    const median = a.medianNs / b.medianNs;
    const verdict =
      best <= limit ? 'achieved' : `not achieved (${fmt((best / limit - 1) * 100, 0)}% over)`;
    console.log(
      `- ${label}: ${fmt(best, 2)}× (medians ${fmt(median, 2)}×), goal ${text}: ${verdict}.`,
    );
  };
  console.log('');
  const off = row('portcullis authenticate(request), cache off');
  goal('portcullis cache off / jose jwtVerify alone (CryptoKey)', off, jose, 1.15, '≤ 1.15×');
  goal(
    'portcullis validateToken (verification only, no user built) / jose jwtVerify alone',
    row('portcullis validateToken'),
    jose,
    1.15,
    '≤ 1.15×',
  );
  goal(
    "portcullis cache on / fast-jwt's cache",
    row('portcullis authenticate(request), cache on'),
    row('fast-jwt, cache'),
    1,
    '≤ 1× (at least as fast)',
  );
  const keyObject = row('jose jwtVerify, KeyObject');
  console.log(
    `- for reference, portcullis cache off / jose jwtVerify with a secret KeyObject (the key ` +
      `portcullis passes it): ${fmt(off.bestNs / keyObject.bestNs, 2)}× ` +
      `(medians ${fmt(off.medianNs / keyObject.medianNs, 2)}×).`,
  );

  const baseline = http[0]!.best;
  console.log('\n## GET /api/profile of the example with a bearer token (best of the rounds)\n');
  console.log('| server | req/s | vs bare | p99 ms | server CPU µs/req | overhead µs/req |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const { name, best } of http) {
    console.log(
      `| ${name} | ${fmt(best.rps)} | ${fmt(best.rps / baseline.rps, 2)} | ${fmt(best.p99)} | ` +
        `${fmt(best.cpuPerRequestMicros, 1)} | ${fmt(best.cpuPerRequestMicros - baseline.cpuPerRequestMicros, 1)} |`,
    );
  }
}
