/**
 * In-process micro-benchmarks: security headers (portcullis's `SecurityHeaders` +
 * `applySecurityHeaders` against helmet's middleware, both called directly on the
 * same real node `ServerResponse`, the cost of making one subtracted), one Argon2id verification with portcullis's defaults, and
 * one HTTP Basic check served from the verified-credential cache. Every contender
 * is checked first (same headers set; right password accepted, wrong one refused).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import helmet from 'helmet';
import {
  AuthenticationManager,
  SecurityHeaders,
  User,
  applySecurityHeaders,
  createSecurityRequest,
} from 'portcullis';
import { Argon2PasswordEncoder } from 'portcullis/argon2';
import { fmt, timePerCall } from './lib.js';

export interface MicroResult {
  readonly headers: {
    readonly portcullisNs: number;
    readonly helmetNs: number;
    readonly count: number;
  };
  readonly argon2: { readonly ms: number; readonly verifications: number };
  readonly basicCachedNs: number;
}

type Middleware = (req: unknown, res: unknown, next: (error?: unknown) => void) => void;

function benchHeaders() {
  const securityHeaders = new SecurityHeaders();
  const helmetMiddleware = helmet() as unknown as Middleware;
  // A real node response (its setHeader validates names and values, as in a server),
  // made fresh per call; the cost of making it alone is subtracted.
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = '/';
  const next = () => undefined;
  const fresh = () => new ServerResponse(req);
  const ours = () => {
    const res = fresh();
    applySecurityHeaders(res, securityHeaders.forRequest());
    return res;
  };
  const theirs = () => {
    const res = fresh();
    helmetMiddleware(req, res, next);
    return res;
  };
  const names = (res: ServerResponse) => res.getHeaderNames().sort().join(',');
  const a = names(ours());
  const b = names(theirs());
  if (a !== b) throw new Error(`security headers differ: portcullis ${a}; helmet ${b}`);
  for (let i = 0; i < 3; i++) {
    timePerCall(ours, 20_000, 1);
    timePerCall(theirs, 20_000, 1);
    timePerCall(fresh, 20_000, 1);
  }
  const base = timePerCall(fresh, 100_000);
  return {
    portcullisNs: timePerCall(ours, 100_000) - base,
    helmetNs: timePerCall(theirs, 100_000) - base,
    count: ours().getHeaderNames().length,
  };
}

async function benchArgon2() {
  const encoder = new Argon2PasswordEncoder();
  const encoded = await encoder.encode('correct horse battery staple');
  if (!(await encoder.matches('correct horse battery staple', encoded))) {
    throw new Error('Argon2 refused the right password');
  }
  if (await encoder.matches('wrong', encoded)) throw new Error('Argon2 accepted a wrong password');
  const verifications = 10;
  const start = process.hrtime.bigint();
  for (let i = 0; i < verifications; i++) {
    await encoder.matches('correct horse battery staple', encoded);
  }
  return { ms: Number(process.hrtime.bigint() - start) / 1e6 / verifications, verifications };
}

async function benchBasicCached(): Promise<number> {
  const encoder = new Argon2PasswordEncoder();
  const store = AuthenticationManager.inMemoryAuthentication()
    .passwordEncoder(encoder)
    .withUser(
      User.withEncodedPassword('user', await encoder.encode('user-password')).withRoles(['USER']),
    );
  const requestWith = (password: string) => {
    const authorization = `Basic ${Buffer.from(`user:${password}`).toString('base64')}`;
    return createSecurityRequest({
      method: 'GET',
      url: '/profile',
      header: (name) => (name === 'authorization' ? authorization : undefined),
    });
  };
  const request = requestWith('user-password');
  if ((await store.authenticate(request))?.username !== 'user') {
    throw new Error('Basic refused the right credential');
  }
  if ((await store.authenticate(requestWith('wrong'))) !== null) {
    throw new Error('Basic accepted a wrong credential');
  }
  // Steady state: every call is a cache hit (awaited when it answers with a promise).
  const iterations = 100_000;
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 7; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) {
      const result = store.authenticate(request);
      if (result instanceof Promise) await result;
    }
    best = Math.min(best, Number(process.hrtime.bigint() - start) / iterations);
  }
  return best;
}

export async function benchMicro(): Promise<MicroResult> {
  return {
    headers: benchHeaders(),
    argon2: await benchArgon2(),
    basicCachedNs: await benchBasicCached(),
  };
}

export function printMicro({ headers, argon2, basicCachedNs }: MicroResult): void {
  const us = (ns: number) => fmt(ns / 1000, 2);
  console.log('\n## Micro-benchmarks, one process, best of 7 rounds\n');
  console.log('| operation | µs/call |');
  console.log('|---|---:|');
  console.log(
    `| security headers: portcullis \`SecurityHeaders.forRequest\` + \`applySecurityHeaders\` | ${us(headers.portcullisNs)} |`,
  );
  console.log(
    `| security headers: helmet 8 middleware called directly | ${us(headers.helmetNs)} |`,
  );
  console.log(
    `| Argon2id verify, portcullis defaults (mean of ${String(argon2.verifications)}) | ${fmt(argon2.ms * 1000, 0)} |`,
  );
  console.log(`| HTTP Basic check, verified-credential cache hit | ${us(basicCachedNs)} |`);
  const ratio = headers.portcullisNs / headers.helmetNs;
  console.log(
    `\n- security headers: portcullis / helmet = ${fmt(ratio, 3)}, goal ≤ 1/5: ` +
      `${ratio <= 0.2 ? 'achieved' : `not achieved (${fmt((ratio / 0.2 - 1) * 100, 0)}% over)`}.`,
  );
  if (ratio > 0.2) {
    console.log(
      `  Both set the same ${String(headers.count)} headers; most of either cost is node's own ` +
        '`ServerResponse.setHeader` (name and value validation per header), which a faster ' +
        'header table cannot remove; only writing the headers in one call (writeHead) could.',
    );
  }
}
