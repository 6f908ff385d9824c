import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryAuthenticator } from '../../src/authentication/index.js';
import {
  Access,
  AuthorizationManager,
  ConfigurationError,
  DeadlineExceededError,
  SecurityTransform,
  User,
  type SecurityOutcome,
} from '../../src/index.js';
import { basic, recordEvents, requestWith, TestEncoder } from './helpers.js';

const never = <T>(): Promise<T> =>
  new Promise<T>(() => {
    // never settles
  });

/** A TestEncoder whose calls never settle for chosen passwords (or every `encode`). */
class HangingEncoder extends TestEncoder {
  hangEncode = false;

  override encode(raw: string): Promise<string> {
    return this.hangEncode ? never() : super.encode(raw);
  }

  override matches(raw: string, encoded: string): Promise<boolean> {
    return raw.startsWith('hang') ? never() : super.matches(raw, encoded);
  }
}

function setup(options: { maxConcurrentVerifications?: number; cache?: false } = {}) {
  const encoder = new HangingEncoder();
  const { events, received } = recordEvents();
  const alice = new User('alice', encoder.hash('wonderland'), ['USER']);
  const auth = new MemoryAuthenticator({
    passwordEncoder: encoder,
    users: [alice],
    events,
    passwordEncoderTimeoutMs: 1_000,
    maxConcurrentVerifications: options.maxConcurrentVerifications ?? 2,
    ...(options.cache === false ? { cache: false as const } : {}),
  });
  const transform = new SecurityTransform({ events })
    .configAuthenticator(() => auth)
    .configAuthorizer(() =>
      AuthorizationManager.requestMatcher()
        .httpBasic()
        .addMatcher('/private', Access.authenticated()),
    );
  return { encoder, auth, transform, received };
}

/** Tracks whether a promise settled, so a hang fails an assertion instead of the test timeout. */
function track<T>(value: T | Promise<T>): { settled: () => boolean; result: Promise<T> } {
  let settled = false;
  const result = Promise.resolve(value).finally(() => {
    settled = true;
  });
  return { settled: () => settled, result };
}

const status = (outcome: SecurityOutcome): number =>
  outcome.proceed ? 200 : outcome.response.status;

describe('a password encoder that never settles', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers 503 with Retry-After at the encoder deadline, with an event naming the encoder and no password', async () => {
    const { transform, received } = setup();
    const outcome = track(transform.handle(requestWith(basic('alice', 'hang-secret'))));
    await vi.advanceTimersByTimeAsync(999);
    expect(outcome.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.settled()).toBe(true);
    const result = await outcome.result;
    expect(status(result)).toBe(503);
    expect(!result.proceed && result.response.headers['retry-after']).toBe('5');
    expect(received).toEqual([
      {
        type: 'deadline-exceeded',
        operation: 'password-encoder',
        timeoutMs: 1_000,
        request: { method: 'GET', path: '/private', clientAddress: '203.0.113.7' },
      },
    ]);
    expect(JSON.stringify(received)).not.toContain('hang-secret');
  });

  it('gives the slot back: hung calls on every slot do not block the next login', async () => {
    const { transform } = setup({ maxConcurrentVerifications: 1 });
    const hung = [1, 2, 3].map((i) =>
      track(transform.handle(requestWith(basic('alice', `hang-${i}`)))),
    );
    // One slot, three hung calls queued behind each other: each gives it back at its deadline.
    await vi.advanceTimersByTimeAsync(3_000);
    for (const call of hung) {
      expect(call.settled()).toBe(true);
      expect(status(await call.result)).toBe(503);
    }
    const good = track(transform.handle(requestWith(basic('alice', 'wonderland'))));
    await vi.advanceTimersByTimeAsync(0);
    expect(good.settled()).toBe(true);
    const outcome = await good.result;
    expect(outcome.proceed && outcome.user?.username).toBe('alice');
  });

  it('rejects verifyCredentials with ERR_DEADLINE_EXCEEDED instead of answering "no user"', async () => {
    const { auth } = setup();
    const verified = auth.verifyCredentials('alice', 'hang-form');
    const assertion = expect(verified).rejects.toMatchObject({
      code: 'ERR_DEADLINE_EXCEEDED',
      operation: 'password-encoder',
      retryAfter: 5,
    });
    await vi.advanceTimersByTimeAsync(1_000);
    await assertion;
    await expect(verified).rejects.toBeInstanceOf(DeadlineExceededError);
  });

  it('fails closed for an unknown user whose dummy hash never comes, and retries it later', async () => {
    const { encoder, transform } = setup();
    encoder.hangEncode = true;
    const unknown = track(transform.handle(requestWith(basic('mallory', 'guess'))));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(unknown.settled()).toBe(true);
    expect(status(await unknown.result)).toBe(503);
    encoder.hangEncode = false;
    const again = track(transform.handle(requestWith(basic('mallory', 'guess'))));
    await vi.advanceTimersByTimeAsync(0);
    expect(status(await again.result)).toBe(401);
  });

  it('skips a password upgrade that never finishes and still logs the user in', async () => {
    const { encoder, auth, transform } = setup({ cache: false });
    encoder.upgrade = () => true;
    encoder.hangEncode = true;
    const login = track(transform.handle(requestWith(basic('alice', 'wonderland'))));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(login.settled()).toBe(true);
    const outcome = await login.result;
    expect(outcome.proceed && outcome.user?.username).toBe('alice');
    expect(auth.findUser('alice')?.password).toBe(encoder.hash('wonderland'));
  });

  it('clears its timers once the encoder answers in time', async () => {
    const { transform } = setup({ cache: false });
    const outcome = await transform.handle(requestWith(basic('alice', 'wonderland')));
    expect(outcome.proceed).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('passwordEncoderTimeoutMs', () => {
  it('defaults to 5 seconds and refuses values that are not whole milliseconds in range', () => {
    const encoder = new TestEncoder();
    expect(() => new MemoryAuthenticator({ passwordEncoder: encoder })).not.toThrow();
    for (const bad of [0, 1.5, 600_001, '5000']) {
      expect(
        () =>
          new MemoryAuthenticator({
            passwordEncoder: encoder,
            passwordEncoderTimeoutMs: bad as never,
          }),
      ).toThrow(ConfigurationError);
    }
    expect(() => new MemoryAuthenticator({ timeout: 5 } as never)).toThrow(
      /is not an option of MemoryAuthenticator \(did you mean "passwordEncoderTimeoutMs"\?\)/u,
    );
  });
});
