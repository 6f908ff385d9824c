import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  TooManyRequestsError,
  UnavailableError,
  retryLaterStatus,
} from '../../src/core/errors.js';
import type { ThrottleStoreFailureEvent } from '../../src/index.js';
import { LoginThrottle, type LoginThrottleOptions } from '../../src/throttle/index.js';
import { testClock } from '../support/clock.js';
import { recordEvents } from '../support/events.js';
import { requestFrom } from './request.js';
import { RecordingStore } from './stores.js';

const ATTACKER = '198.51.100.66';

function setup(mode: RecordingStore['mode'], options: LoginThrottleOptions = {}) {
  const store = new RecordingStore();
  store.mode = mode;
  const { events, received } = recordEvents();
  const throttle = new LoginThrottle({ store, events, storeTimeoutMs: 50, ...options });
  const admit = async () => throttle.admit('alice', requestFrom(ATTACKER));
  const failures = () =>
    received.filter((e): e is ThrottleStoreFailureEvent => e.type === 'throttle-store-failure');
  return { throttle, store, received, admit, failures };
}

async function caught(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('LoginThrottle when its store fails', () => {
  it('fails closed by default: 503, not 429, with a throttle-store-failure event', async () => {
    for (const mode of ['throw', 'reject'] as const) {
      const { admit, failures, store } = setup(mode);
      const error = await caught(admit);
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error).not.toBeInstanceOf(TooManyRequestsError);
      expect((error as UnavailableError).code).toBe('ERR_STORE_UNAVAILABLE');
      expect(retryLaterStatus(error as UnavailableError)).toBe(503);
      expect((error as Error).message).not.toContain('login:');
      expect(failures()).toHaveLength(1);
      expect(failures()[0]).toMatchObject({
        limiter: 'login',
        policy: 'fail-closed',
        error: 'ERR_STORE_UNAVAILABLE',
        request: { clientAddress: ATTACKER },
      });
      expect(JSON.stringify(failures())).not.toContain(store.keys[0]);
    }
  });

  it('admits uncounted with fail-open, and says so in the event', async () => {
    for (const mode of ['throw', 'reject'] as const) {
      const { admit, failures, store } = setup(mode, { onStoreFailure: 'fail-open' });
      for (let i = 0; i < 20; i++) await (await admit()).settle('failed');
      expect(failures()).toHaveLength(40); // the address and the username, each time
      expect(failures()[0]).toMatchObject({ policy: 'fail-open', limiter: 'login' });
      expect(store.inner.size).toBe(0);
    }
  });

  it('still counts on the counter that answers when another fails open', async () => {
    const { admit, store } = setup('throw', { onStoreFailure: 'fail-open' });
    store.failing = (_operation, key) => key.startsWith('login:a:');
    for (let i = 0; i < 5; i++) await (await admit()).settle('failed');
    const error = await caught(admit);
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect((error as TooManyRequestsError).scope).toBe('username');
  });

  it('gives up on a store that never answers at its deadline, without hanging', async () => {
    const closed = setup('hang', { storeTimeoutMs: 30 });
    const error = await caught(closed.admit);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).not.toBeInstanceOf(TooManyRequestsError);
    expect((error as UnavailableError).code).toBe('ERR_DEADLINE_EXCEEDED');
    expect(closed.failures()[0]).toMatchObject({ error: 'ERR_DEADLINE_EXCEEDED' });

    const open = setup('hang', { storeTimeoutMs: 30, onStoreFailure: 'fail-open' });
    await expect(open.admit()).resolves.toBeDefined();
  });

  it('fails verified() closed too, or lets it through with fail-open', async () => {
    const closed = setup('reject');
    const error = await caught(() => closed.throttle.verified('alice', requestFrom(ATTACKER)));
    expect((error as UnavailableError).code).toBe('ERR_STORE_UNAVAILABLE');
    const thrown = setup('throw');
    const sync = await caught(() => thrown.throttle.verified('alice', requestFrom(ATTACKER)));
    expect(sync).toBeInstanceOf(UnavailableError);
    const open = setup('throw', { onStoreFailure: 'fail-open' });
    await expect(
      Promise.resolve(open.throttle.verified('alice', requestFrom(ATTACKER))),
    ).resolves.toBeUndefined();
  });

  it('never fails a successful login when taking the attempt back fails', async () => {
    for (const mode of ['throw', 'reject', 'hang'] as const) {
      const { admit, failures, store } = setup('ok', { storeTimeoutMs: 30 });
      const attempt = await admit();
      store.mode = mode;
      store.failing = (operation) => operation === 'release';
      await expect(Promise.resolve(attempt.settle('matched'))).resolves.toBeUndefined();
      expect(failures().length).toBeGreaterThan(0);
      const other = await admit();
      await expect(Promise.resolve(other.settle('unchecked'))).resolves.toBeUndefined();
    }
  });
});

describe('LoginThrottle options', () => {
  it('reads durations as seconds or with a unit', async () => {
    for (const delay of [90, '90s', '90000ms'] as const) {
      const clock = testClock();
      const throttle = new LoginThrottle({
        clock: clock.now,
        username: { max: 2, delay, maxDelay: '1h' },
      });
      for (let i = 0; i < 2; i++) await (await throttle.admit('alice')).settle('failed');
      const error = await caught(() => throttle.admit('alice'));
      expect((error as TooManyRequestsError).retryAfter).toBe(90);
    }
    for (const window of [900, '15m', '900s'] as const) {
      for (const [elapsed, refusedAfter] of [
        [15 * 60_000 - 1, 1], // still in the window: the third failure starts a delay
        [15 * 60_000, 3], // the window has passed: counting starts again
      ] as const) {
        const clock = testClock();
        const throttle = new LoginThrottle({ clock: clock.now, username: { max: 3, window } });
        for (let i = 0; i < 2; i++) await (await throttle.admit('alice')).settle('failed');
        clock.advance(elapsed);
        for (let i = 0; i < refusedAfter; i++)
          await (await throttle.admit('alice')).settle('failed');
        expect(await caught(() => throttle.admit('alice'))).toBeInstanceOf(TooManyRequestsError);
      }
    }
  });

  it('refuses bad options by name, with a hint for a typo', () => {
    const bad: [unknown, string, string?][] = [
      [{ usernme: { max: 3 } }, 'usernme', 'did you mean "username"'],
      [{ username: { windw: '15m' } }, 'windw', 'did you mean "window"'],
      [{ trustedProxy: 1 }, 'trustedProxy', 'did you mean "trustedProxies"'],
      [{ username: { window: 'soon' } }, 'username.window'],
      [{ username: { window: '15 minutes' } }, 'username.window'],
      [{ address: { delay: 0 } }, 'address.delay'],
      [{ address: { delay: -5 } }, 'address.delay'],
      [{ username: { delay: '1m', maxDelay: '30s' } }, 'username.maxDelay'],
      [{ username: { max: 0 } }, 'username.max'],
      [{ username: { max: 1.5 } }, 'username.max'],
      [{ username: true }, 'username'],
      [{ address: null }, 'address'],
      [{ onStoreFailure: 'open' }, 'onStoreFailure'],
      [{ storeTimeoutMs: 0 }, 'storeTimeoutMs'],
      [{ storeTimeoutMs: 1.5 }, 'storeTimeoutMs'],
      [{ store: {} }, 'store'],
      [{ clock: 'now' }, 'clock'],
      [{ trustedProxies: -1 }, 'trustedProxies'],
      [null, 'options'],
    ];
    for (const [options, option, hint] of bad) {
      const error = (() => {
        try {
          new LoginThrottle(options as LoginThrottleOptions);
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      })();
      expect(error, JSON.stringify(options)).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).option).toBe(option);
      if (hint !== undefined) expect((error as Error).message).toContain(hint);
    }
  });

  it('never changes the caller’s options', () => {
    const username = Object.freeze({ max: 3, window: '5m' as const });
    const options = Object.freeze({ username });
    expect(() => new LoginThrottle(options)).not.toThrow();
    expect(username).toEqual({ max: 3, window: '5m' });
  });
});
