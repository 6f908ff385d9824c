import { createHmac, pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { MemoryAuthenticator } from '../../src/authentication/index.js';
import {
  createSecurityRequest,
  User,
  type AuthenticationFailureEvent,
  type SecurityEvent,
  type SecurityRequest,
} from '../../src/core/index.js';

/** A request whose `Authorization` header is `authorization` (or repeated headers, joined). */
export function requestWith(
  authorization?: string | readonly string[],
  extra: Readonly<Record<string, string>> = {},
): SecurityRequest {
  const value = typeof authorization === 'string' ? authorization : authorization?.join(', ');
  return createSecurityRequest({
    method: 'GET',
    url: '/private?x=1',
    header: (name) => (name === 'authorization' ? value : extra[name]),
    clientAddress: '203.0.113.7',
  });
}

/** `Basic base64(username:password)`. */
export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** `Basic` with raw bytes as the token. */
export function basicBytes(bytes: readonly number[]): string {
  return `Basic ${Buffer.from(bytes).toString('base64')}`;
}

import { recordEvents } from '../support/events.js';

export { recordEvents };

/** A promise and the function that resolves it. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Lets pending promise callbacks run. */
export async function flush(times = 10): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A small HMAC-SHA256 test encoder (`{test}salt$hex`), with call counters, an
 * optional gate that `matches` waits on, and a switchable `upgradeEncoding`.
 */
export class TestEncoder {
  encodeCalls = 0;
  matchesCalls = 0;
  /** While set, `matches` waits for this promise. */
  hold: Promise<void> | undefined;
  /** Which stored hashes ask for an upgrade. */
  upgrade: (encoded: string) => boolean = () => false;
  readonly prefix: string;

  constructor(prefix = '{test}') {
    this.prefix = prefix;
  }

  encode(raw: string): Promise<string> {
    this.encodeCalls++;
    return Promise.resolve(this.hash(raw, randomBytes(8).toString('hex')));
  }

  async matches(raw: string, encoded: string): Promise<boolean> {
    this.matchesCalls++;
    if (this.hold) await this.hold;
    if (!encoded.startsWith(this.prefix)) return false;
    const salt = encoded.slice(this.prefix.length, encoded.indexOf('$'));
    const expected = Buffer.from(encoded);
    const actual = Buffer.from(this.hash(raw, salt));
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  upgradeEncoding(encoded: string): boolean {
    return this.upgrade(encoded);
  }

  /** Synchronous encoding, for building users in tests. */
  hash(raw: string, salt = 'fixed'): string {
    return `${this.prefix}${salt}$${createHmac('sha256', salt).update(raw).digest('hex')}`;
  }
}

const pbkdf2Async = promisify(pbkdf2);

/** A PBKDF2 encoder with a fixed, deterministic cost (for the timing test). */
export class Pbkdf2TestEncoder {
  matchesCalls = 0;
  readonly iterations: number;

  constructor(iterations: number) {
    this.iterations = iterations;
  }

  async encode(raw: string): Promise<string> {
    const salt = randomBytes(16);
    const hash = await pbkdf2Async(raw, salt, this.iterations, 32, 'sha256');
    return `${salt.toString('base64')}$${hash.toString('base64')}`;
  }

  async matches(raw: string, encoded: string): Promise<boolean> {
    this.matchesCalls++;
    const [salt = '', hash = ''] = encoded.split('$');
    const expected = Buffer.from(hash, 'base64');
    const actual = await pbkdf2Async(
      raw,
      Buffer.from(salt, 'base64'),
      this.iterations,
      32,
      'sha256',
    );
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  upgradeEncoding(): boolean {
    return false;
  }
}

/** alice (`wonderland`, role USER, authority posts:read) and bob (empty password) with a TestEncoder. */
export function memorySetup(options: { cache?: false } = {}) {
  const encoder = new TestEncoder();
  const { events, received } = recordEvents();
  const alice = new User('alice', encoder.hash('wonderland'), ['USER'], ['posts:read']);
  const bob = new User('bob', encoder.hash(''), ['USER']);
  const auth = new MemoryAuthenticator({
    passwordEncoder: encoder,
    users: [alice, bob],
    events,
    ...options,
  });
  return { encoder, events, received, auth, alice, bob };
}

/** The failure events of a list of events. */
export function failures(received: readonly SecurityEvent[]): AuthenticationFailureEvent[] {
  return received.filter(
    (e): e is AuthenticationFailureEvent => e.type === 'authentication-failure',
  );
}
