/**
 * A limiter told to fail open never turns itself off silently: the first request let
 * through uncounted raises a process warning (once per outage, listeners or not).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LoginThrottle, rateLimit } from '../../src/throttle/index.js';
import { requestFrom } from './request.js';
import { RecordingStore } from './stores.js';

/** Silences process warnings; answers those of failing open so far. */
function silenceWarnings(): () => unknown[][] {
  const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  return () =>
    spy.mock.calls.filter(
      (call) =>
        (call[1] as { code?: string } | undefined)?.code === 'PORTCULLIS_THROTTLE_FAIL_OPEN',
    );
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('fail-open says so', () => {
  it('warns once per outage, and again after the store came back and failed anew', async () => {
    const warnings = silenceWarnings();
    const store = new RecordingStore();
    const throttle = new LoginThrottle({ store, onStoreFailure: 'fail-open' });
    store.mode = 'reject';
    for (let i = 0; i < 10; i++)
      await (await throttle.admit('alice', requestFrom('203.0.113.9'))).settle('failed');
    expect(warnings()).toHaveLength(1);
    expect(String(warnings()[0]?.[0])).toContain('requests pass uncounted');
    expect(String(warnings()[0]?.[0])).not.toContain('alice');
    store.mode = 'ok';
    await (await throttle.admit('alice', requestFrom('203.0.113.9'))).settle('failed');
    store.mode = 'throw';
    await throttle.admit('alice', requestFrom('203.0.113.9'));
    expect(warnings()).toHaveLength(2);
  });

  it('a rate limit failing open warns too; failing closed does not (it answers 503)', () => {
    const warnings = silenceWarnings();
    const store = new RecordingStore();
    store.mode = 'throw';
    const open = rateLimit({
      name: 'search',
      window: '1m',
      max: 5,
      store,
      onStoreFailure: 'fail-open',
    });
    for (let i = 0; i < 3; i++)
      expect(open.consume({ request: requestFrom('203.0.113.9'), user: null })).toBeUndefined();
    expect(warnings()).toHaveLength(1);
    expect(String(warnings()[0]?.[0])).toContain('search');
    const closed = rateLimit({ name: 'export', window: '1m', max: 5, store });
    expect(() => closed.consume({ request: requestFrom('203.0.113.9'), user: null })).toThrow();
    expect(warnings()).toHaveLength(1);
  });
});
