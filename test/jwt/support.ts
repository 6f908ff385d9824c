import {
  createHmac,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, type JWTHeaderParameters, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import { createSecurityRequest, type SecurityRequest } from '../../src/core/index.js';
import { JwtError, type JwtErrorCode } from '../../src/jwt/index.js';
import { listen } from '../support/server.js';

/** The fixed "now" of the tests, 2030-01-01T12:00:00Z, in epoch milliseconds. */
export const NOW = Date.UTC(2030, 0, 1, 12);
/** {@link NOW} in epoch seconds. */
export const NOW_S = NOW / 1000;

/** A settable clock for `JwtConfig.clock`. */
export interface TestClock {
  (): number;
  /** Sets the time, epoch milliseconds. */
  set(ms: number): void;
  /** Moves the time by whole seconds. */
  advance(seconds: number): void;
}

/** A clock frozen at `start` until the test moves it. */
export function testClock(start = NOW): TestClock {
  let now = start;
  const clock = (() => now) as TestClock;
  clock.set = (ms) => {
    now = ms;
  };
  clock.advance = (seconds) => {
    now += seconds * 1000;
  };
  return clock;
}

/** A random secret of exactly `bytes` UTF-8 bytes (base64url characters). */
export function secretOf(bytes: number): string {
  return randomBytes(bytes).toString('base64url').slice(0, bytes);
}

/** A 64-byte secret: fits HS256, HS384 and HS512. */
export const SECRET = secretOf(64);

/** Base64url of a string, bytes, or a value as JSON. */
export function b64url(value: unknown): string {
  if (typeof value === 'string') return Buffer.from(value, 'utf8').toString('base64url');
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64url');
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** A compact JWS put together by hand, `header.payload.signature`, signed by nobody. */
export function compact(header: unknown, payload: unknown, signature = ''): string {
  return `${b64url(header)}.${b64url(payload)}.${signature}`;
}

/**
 * An HMAC-signed compact JWS built from raw parts with node:crypto, for tokens jose
 * refuses to produce (a `crit` it does not know, a public key as the secret, bad JSON).
 */
export function hmacToken(
  secret: string | Uint8Array,
  header: unknown,
  payload: unknown,
  hash: 'sha256' | 'sha384' | 'sha512' = 'sha256',
): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  const signature = createHmac(hash, secret).update(input).digest('base64url');
  return `${input}.${signature}`;
}

/** The header parameters a test token may carry. */
export type TestHeader = Readonly<Record<string, unknown>> & { readonly alg?: string };

/**
 * Signs a claims set with jose; the header defaults to `{ alg: 'HS256', typ: 'at+jwt' }`
 * (a `typ` of `undefined` leaves it out).
 */
export function sign(
  key: KeyObject | Uint8Array | string,
  payload: JWTPayload,
  header: TestHeader = {},
): Promise<string> {
  const protectedHeader: Record<string, unknown> = { alg: 'HS256', typ: 'at+jwt', ...header };
  if (protectedHeader['typ'] === undefined) delete protectedHeader['typ'];
  const material = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  return new SignJWT(payload)
    .setProtectedHeader(protectedHeader as unknown as JWTHeaderParameters)
    .sign(material);
}

/** The claims of a valid access token issued at `now` (seconds), living ten minutes. */
export function claimsAt(extra: Readonly<Record<string, unknown>> = {}, now = NOW_S): JWTPayload {
  return { sub: 'alice', iat: now, exp: now + 600, ...extra };
}

/** A request to `url` with these headers (names in lower case). */
export function requestWith(
  headers: Readonly<Record<string, string>> = {},
  url = '/api/data',
): SecurityRequest {
  return createSecurityRequest({
    method: 'GET',
    url,
    header: (name) => headers[name],
    clientAddress: '127.0.0.1',
  });
}

/** `{ authorization: 'Bearer <token>' }`. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** Awaits a rejection and checks it is a {@link JwtError} with `code`. */
export async function expectJwtError(
  promise: Promise<unknown>,
  code: JwtErrorCode,
): Promise<JwtError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, `expected ${code}`).toBeInstanceOf(JwtError);
  expect((error as JwtError).code).toBe(code);
  return error as JwtError;
}

/** Runs `fn` and returns the error it threw; fails when it does not throw. */
export function thrown(fn: () => unknown): { code?: string; option?: string } {
  try {
    fn();
  } catch (error) {
    return error as { code?: string; option?: string };
  }
  throw new Error('expected an error');
}

import { recordEvents } from '../support/events.js';

export { recordEvents };

/** Key pairs of every family, generated once per test file on first use. */
export const keyPairs = {
  rsa: once(() => generateKeyPairSync('rsa', { modulusLength: 2048 })),
  rsa2: once(() => generateKeyPairSync('rsa', { modulusLength: 2048 })),
  rsaPss: once(() => generateKeyPairSync('rsa-pss', { modulusLength: 2048 })),
  p256: once(() => generateKeyPairSync('ec', { namedCurve: 'P-256' })),
  p384: once(() => generateKeyPairSync('ec', { namedCurve: 'P-384' })),
  p521: once(() => generateKeyPairSync('ec', { namedCurve: 'P-521' })),
  ed25519: once(() => generateKeyPairSync('ed25519')),
};

function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/** The public JWK of a key, as a key server publishes it. */
export function publicJwk(key: KeyObject, kid: string, alg: string): Record<string, unknown> {
  const jwk = (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'jwk' });
  return { ...jwk, kid, alg, use: 'sig' };
}

/** A JWKS endpoint on 127.0.0.1 whose answer a test controls, counting requests. */
export interface KeyServer {
  /** The JWKS URL. */
  readonly url: string;
  /** How many requests it answered so far. */
  readonly requests: number;
  /** Serves `{ keys }` with status 200. */
  serveKeys(keys: readonly Record<string, unknown>[]): void;
  /** Serves any status and body. */
  respond(status: number, body: string): void;
  /** Never answers (the client times out). */
  hang(): void;
  close(): Promise<void>;
}

/** Starts a {@link KeyServer}. */
export async function startKeyServer(): Promise<KeyServer> {
  let answer: { status: number; body: string } | 'hang' = { status: 200, body: '{"keys":[]}' };
  let requests = 0;
  const server = await listen((_req: IncomingMessage, res: ServerResponse) => {
    requests += 1;
    if (answer === 'hang') return;
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.body);
  });
  return {
    url: `${server.origin}/.well-known/jwks.json`,
    get requests() {
      return requests;
    },
    serveKeys(keys) {
      answer = { status: 200, body: JSON.stringify({ keys }) };
    },
    respond(status, body) {
      answer = { status, body };
    },
    hang() {
      answer = 'hang';
    },
    close: () => server.close(),
  };
}

/** A port on 127.0.0.1 that nothing listens on (a server was bound and closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return port;
}
