import { ConfigurationError } from '../core/errors.js';
import { DURATION, UNIT_MS } from '../throttle/duration.js';

/**
 * A clock the test moves by hand, in epoch milliseconds. It is a function, so it goes
 * wherever portcullis takes a clock (`JwtConfig.clock`, `new JwtConfig({ clock })`,
 * `SessionAuthenticator`'s `clock`, the memory stores' `clock`,
 * `createRedisStores({ clock })`); `clock.now` is the same function.
 */
export interface ManualClock {
  /** The current time, epoch milliseconds. */
  (): number;
  /** The current time, epoch milliseconds (the clock itself, bound). */
  readonly now: () => number;
  /** Sets the time: epoch milliseconds or a `Date`. */
  set(time: number | Date): void;
  /**
   * Moves the time by `ms` milliseconds (negative goes back: a skewed clock), or by a
   * duration string: `'15m'`, `'1h'`, `'30s'`, `'500ms'`, `'2d'`.
   */
  advance(ms: number | `${number}${'ms' | 's' | 'm' | 'h' | 'd'}`): void;
}

function epochMs(option: string, time: unknown): number {
  const ms = time instanceof Date ? time.getTime() : time;
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0) {
    throw new ConfigurationError(option, 'must be a Date or whole epoch milliseconds (≥ 0)');
  }
  return ms;
}

function stepMs(step: unknown): number {
  if (typeof step === 'number' && Number.isSafeInteger(step)) return step;
  const match = typeof step === 'string' ? DURATION.exec(step) : null;
  if (match === null) {
    throw new ConfigurationError(
      'advance',
      "must be whole milliseconds or a duration such as '15m', '1h', '30s', '500ms'",
    );
  }
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

/**
 * A {@link ManualClock} starting at `start` (default: the real time now, so that
 * what is checked on the real clock, such as iron-session's seal expiry, agrees).
 *
 * @example
 * ```ts
 * const clock = manualClock();
 * const jwt = await testJwt({ clock, expirationSeconds: 900 });
 * const token = await jwt.tokenFor(mockUser());
 * clock.advance('16m'); // the token has expired (past the 30 s leeway)
 * ```
 */
export function manualClock(start: number | Date = Date.now()): ManualClock {
  let now = epochMs('start', start);
  const clock = (() => now) as ManualClock & { now: () => number };
  clock.now = clock;
  clock.set = (time) => {
    now = epochMs('set', time);
  };
  clock.advance = (step) => {
    now = epochMs('advance', now + stepMs(step));
  };
  return Object.freeze(clock);
}
