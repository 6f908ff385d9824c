/**
 * A benchmark process (not a server): JWT verification, HS256, one access token and
 * one secret for every verifier, in interleaved rounds (each keeps its best round and
 * its median): portcullis's `JwtAuthenticator.authenticate(request)` with the
 * verified-token cache off and on (steady-state hits) and `validateToken`; `jose`'s
 * `jwtVerify` alone with a pre-imported `CryptoKey` and with a `KeyObject`;
 * `fast-jwt` with and without its cache; one HMAC-SHA256 of the signing input with
 * `timingSafeEqual` as the floor. Every verifier first has to accept the token and
 * refuse forged ones. bench/jwt.ts runs it pinned to one core (WebCrypto's HMAC runs
 * on libuv's thread pool, and a hop between cores is slow and noisy on a VM) and
 * receives the result over IPC; run alone, it prints the result as JSON.
 */
import { createHmac, createSecretKey, randomBytes, timingSafeEqual, webcrypto } from 'node:crypto';
import { createVerifier } from 'fast-jwt';
import { jwtVerify } from 'jose';
import { User, createSecurityRequest, type SecurityRequest } from 'portcullis';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'api';
const ROUNDS = 9;
/** Wall time of one verifier in one round, in nanoseconds (iterations calibrated per verifier). */
const ROUND_NS = 150e6;

interface Contender {
  readonly name: string;
  /** Checks claims (expiry, issuer, audience), not only the signature. */
  readonly claims: boolean;
  /** Verifies any token: the subject when accepted, `null` when refused (a throw refuses). */
  readonly verify: (token: string) => Promise<string | null>;
  /** The timed call on the benchmark token, its inputs prepared once: a value or a promise. */
  readonly run: () => unknown;
}

async function refusing<T>(verification: () => T | Promise<T>): Promise<T | null> {
  try {
    return await verification();
  } catch {
    return null;
  }
}
const subjectOf = (payload: unknown): string | null =>
  typeof payload === 'object' && payload !== null && 'sub' in payload ? String(payload.sub) : null;

/** A request carrying the token, its header value built once (as a server receives it). */
function requestWith(token: string): SecurityRequest {
  const authorization = `Bearer ${token}`;
  return createSecurityRequest({
    method: 'GET',
    url: '/api/profile',
    header: (name) => (name === 'authorization' ? authorization : undefined),
  });
}

/** The token, the forged ones every verifier must refuse, and the verifiers. */
async function setup() {
  const secret = randomBytes(32).toString('base64url');
  const user = new User('alice', '', ['USER'], ['posts:read']);
  const config = () => new JwtConfig(secret).issuer(ISSUER).audience(AUDIENCE);
  const cached = new JwtAuthenticator(config());
  const uncached = new JwtAuthenticator(config().cache(false));
  const token = await cached.generateToken(user);
  const [header = '', payload = '', signature = ''] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as object;
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const forged: { name: string; token: string; signatureOnly: boolean }[] = [
    {
      name: 'payload changed (roles: ADMIN), signature kept',
      token: `${header}.${encode({ ...claims, roles: ['ADMIN'] })}.${signature}`,
      signatureOnly: true,
    },
    {
      name: 'signed with another secret',
      token: await new JwtAuthenticator(
        new JwtConfig(randomBytes(32)).issuer(ISSUER).audience(AUDIENCE),
      ).generateToken(user),
      signatureOnly: true,
    },
    {
      name: 'alg: none',
      token: `${encode({ alg: 'none', typ: 'at+jwt' })}.${payload}.`,
      signatureOnly: true,
    },
    {
      name: 'another audience',
      token: await new JwtAuthenticator(
        new JwtConfig(secret).issuer(ISSUER).audience('other'),
      ).generateToken(user),
      signatureOnly: false,
    },
    {
      name: 'expired',
      token: await new JwtAuthenticator(config().clock(() => Date.now() - 3_600_000)).generateToken(
        user,
      ),
      signatureOnly: false,
    },
  ];

  const request = requestWith(token);
  const authenticate = (jwt: JwtAuthenticator) => async (t: string) =>
    (await jwt.authenticate(requestWith(t)))?.username ?? null;
  const joseOptions = { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE };
  const secretBytes = Buffer.from(secret, 'utf8');
  const cryptoKey = await webcrypto.subtle.importKey(
    'raw',
    secretBytes,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  // The kind of key portcullis hands to jose (a secret KeyObject).
  const keyObject = createSecretKey(secretBytes);
  const fastOptions = {
    key: secret,
    algorithms: ['HS256' as const],
    allowedIss: ISSUER,
    allowedAud: AUDIENCE,
  };
  const fastCached: (token: string) => unknown = createVerifier({ ...fastOptions, cache: true });
  const fastUncached: (token: string) => unknown = createVerifier(fastOptions);
  /** One HMAC-SHA256 of the signing input, compared in constant time. */
  const floor = (t: string): boolean => {
    const dot = t.lastIndexOf('.');
    const expected = Buffer.from(t.slice(dot + 1), 'base64url');
    const actual = createHmac('sha256', secretBytes).update(t.slice(0, dot)).digest();
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  };

  const contenders: Contender[] = [
    {
      name: 'portcullis authenticate(request), cache off',
      claims: true,
      verify: authenticate(uncached),
      run: () => uncached.authenticate(request),
    },
    {
      name: 'portcullis validateToken (never cached)',
      claims: true,
      verify: async (t) => subjectOf((await refusing(() => uncached.validateToken(t)))?.claims),
      run: () => uncached.validateToken(token),
    },
    {
      name: 'jose jwtVerify, pre-imported CryptoKey',
      claims: true,
      verify: async (t) =>
        subjectOf((await refusing(() => jwtVerify(t, cryptoKey, joseOptions)))?.payload),
      run: () => jwtVerify(token, cryptoKey, joseOptions),
    },
    {
      name: 'jose jwtVerify, KeyObject',
      claims: true,
      verify: async (t) =>
        subjectOf((await refusing(() => jwtVerify(t, keyObject, joseOptions)))?.payload),
      run: () => jwtVerify(token, keyObject, joseOptions),
    },
    {
      name: 'fast-jwt, no cache',
      claims: true,
      verify: async (t) => subjectOf(await refusing(() => fastUncached(t))),
      run: () => fastUncached(token),
    },
    {
      name: 'portcullis authenticate(request), cache on (hits)',
      claims: true,
      verify: authenticate(cached),
      run: () => cached.authenticate(request),
    },
    {
      name: 'fast-jwt, cache: true (hits)',
      claims: true,
      verify: async (t) => subjectOf(await refusing(() => fastCached(t))),
      run: () => fastCached(token),
    },
    {
      name: 'floor: createHmac + timingSafeEqual',
      claims: false,
      verify: (t) => Promise.resolve(floor(t) ? 'alice' : null),
      run: () => floor(token),
    },
  ];
  return { contenders, forged, token };
}

/**
 * Proves security is on before anything is timed: each verifier accepts the token
 * (twice, so the caches hold it) and refuses every forged one, also after caching.
 */
async function check({ contenders, forged, token }: Awaited<ReturnType<typeof setup>>) {
  for (const contender of contenders) {
    for (let i = 0; i < 2; i++) {
      const subject = await contender.verify(token);
      if (subject !== 'alice') throw new Error(`${contender.name} refused the valid token`);
    }
    for (const attack of forged) {
      if (attack.signatureOnly || contender.claims) {
        const subject = await contender.verify(attack.token);
        if (subject !== null) throw new Error(`${contender.name} accepted: ${attack.name}`);
      }
    }
  }
  return forged.map((attack) => attack.name);
}

/** Nanoseconds per call over `iterations` calls, one at a time (each awaited when async). */
async function timeCalls(run: () => unknown, iterations: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    const result = run();
    if (result instanceof Promise) await result;
  }
  return Number(process.hrtime.bigint() - start) / iterations;
}

/** One verifier's time per verification, in nanoseconds. */
export interface JwtMicroRow {
  readonly name: string;
  readonly bestNs: number;
  readonly medianNs: number;
}

/** The rows, and the forged tokens every verifier refused before timing. */
export interface JwtMicroResult {
  readonly rows: readonly JwtMicroRow[];
  readonly refused: readonly string[];
  /** The rounds each verifier ran. */
  readonly rounds: number;
}

async function benchMicro(): Promise<JwtMicroResult> {
  const bench = await setup();
  const refused = await check(bench);
  const iterations = new Map<Contender, number>();
  for (const contender of bench.contenders) {
    await timeCalls(contender.run, 200);
    const ns = await timeCalls(contender.run, 500);
    iterations.set(contender, Math.max(200, Math.round(ROUND_NS / ns)));
  }
  const samples = new Map<Contender, number[]>(bench.contenders.map((c) => [c, []]));
  const count = bench.contenders.length;
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts one verifier later, so no verifier always follows the same one
    // (and, say, always pays for the garbage collection its predecessor left).
    for (let i = 0; i < count; i++) {
      const contender = bench.contenders[(round + i) % count]!;
      samples.get(contender)!.push(await timeCalls(contender.run, iterations.get(contender)!));
    }
  }
  const rows = bench.contenders.map((contender) => {
    const sorted = samples.get(contender)!.sort((x, y) => x - y);
    return {
      name: contender.name,
      bestNs: sorted[0]!,
      medianNs: sorted[Math.floor(sorted.length / 2)]!,
    };
  });
  return { rows, refused, rounds: ROUNDS };
}

const result = await benchMicro();
if (process.send) {
  process.send(result);
  process.disconnect();
} else {
  console.log(JSON.stringify(result, null, 2));
}
