/**
 * An attempt that turned out right (or was not checked) is taken back whole: the
 * doubled delay it set pessimistically goes with it, so a NAT's legitimate user
 * does not prolong the block of a guesser behind the same address.
 */
import { describe, expect, it } from 'vitest';
import { TooManyRequestsError } from '../../src/core/errors.js';
import { LoginThrottle, type LoginAttemptResult } from '../../src/throttle/index.js';
import { testClock } from '../support/clock.js';
import { requestFrom } from './request.js';
import { RecordingStore } from './stores.js';

const MINUTE = 60_000;
const NAT = '203.0.113.9';

function setup() {
  const clock = testClock();
  const throttle = new LoginThrottle({
    store: new RecordingStore(),
    clock: clock.now,
    address: { max: 3 },
  });
  const attempt = async (username: string, result: LoginAttemptResult): Promise<unknown> => {
    try {
      await (await throttle.admit(username, requestFrom(NAT))).settle(result);
      return 'admitted';
    } catch (error) {
      return error instanceof TooManyRequestsError ? error.retryAfter : error;
    }
  };
  return { clock, attempt };
}

describe('a refunded attempt takes its block with it', () => {
  it('a right password after the first delay leaves the address as it was, not blocked for twice as long', async () => {
    const { clock, attempt } = setup();
    for (const name of ['a', 'b', 'c']) expect(await attempt(name, 'failed')).toBe('admitted');
    expect(await attempt('alice', 'matched')).toBe(60);
    clock.advance(MINUTE);
    // The address's 4th attempt blocks it for 2 minutes while it runs; it was right.
    expect(await attempt('alice', 'matched')).toBe('admitted');
    // Back to 3 failures and no block: the guesser's next attempt is the 4th again (2 min).
    expect(await attempt('d', 'failed')).toBe('admitted');
    expect(await attempt('e', 'failed')).toBe(120);
  });

  it("an attempt that could not be checked ('unchecked') sets no block", async () => {
    const { clock, attempt } = setup();
    for (const name of ['a', 'b']) await attempt(name, 'failed');
    // The 3rd reaches max and blocks for a minute while it runs; the server was busy.
    expect(await attempt('c', 'unchecked')).toBe('admitted');
    expect(await attempt('d', 'failed')).toBe('admitted');
    expect(await attempt('e', 'failed')).toBe(60);
    clock.advance(MINUTE);
    expect(await attempt('f', 'failed')).toBe('admitted');
  });
});
