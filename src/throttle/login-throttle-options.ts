import { ConfigurationError } from '../core/errors.js';
import { rejectUnknownOptions, requireInteger } from '../core/validate.js';
import type { ThrottleRule } from '../stores/types.js';
import { durationMs, type Duration } from './duration.js';
import { LIMITER_OPTIONS, type LimiterOptions } from './limiter-store.js';

/** One counter of a `LoginThrottle`: how many failures in a window before delays begin, and how long they are. */
export interface LoginThrottleRuleOptions {
  /** Failed attempts let through in a window; the one that reaches it starts the first delay. */
  readonly max?: number;
  /** The fixed window the failures are counted in. @defaultValue `'15m'` */
  readonly window?: Duration;
  /** The first delay; each attempt let through after a delay doubles it. @defaultValue `'1m'` */
  readonly delay?: Duration;
  /** The longest delay. @defaultValue `'15m'` */
  readonly maxDelay?: Duration;
}

/** Options of `LoginThrottle`. */
export interface LoginThrottleOptions extends LimiterOptions {
  /**
   * The counter per username (case and Unicode compatibility forms folded, so
   * `Alice` and `ALICE` share it), or `false` for none.
   * @defaultValue `{ max: 5, window: '15m', delay: '1m', maxDelay: '15m' }`
   */
  readonly username?: LoginThrottleRuleOptions | false;
  /**
   * The counter per client address (IPv6 by its /64; see `trustedProxies`), or
   * `false` for none. Successful logins are taken back from it, so it counts failures.
   * @defaultValue `{ max: 100, window: '15m', delay: '1m', maxDelay: '15m' }`
   */
  readonly address?: LoginThrottleRuleOptions | false;
}

const USERNAME_DEFAULTS = { max: 5, window: '15m', delay: '1m', maxDelay: '15m' } as const;
const ADDRESS_DEFAULTS = { max: 100, window: '15m', delay: '1m', maxDelay: '15m' } as const;

/** The option names of {@link LoginThrottleOptions}. @internal */
export const LOGIN_THROTTLE_OPTIONS: readonly string[] = [
  'username',
  'address',
  ...LIMITER_OPTIONS,
];

/** The username and address rules of a throttle's options (`undefined`: no such counter). @internal */
export function resolveRules(options: LoginThrottleOptions): {
  readonly username: ThrottleRule | undefined;
  readonly address: ThrottleRule | undefined;
} {
  return {
    username: resolveRule('username', options.username, USERNAME_DEFAULTS),
    address: resolveRule('address', options.address, ADDRESS_DEFAULTS),
  };
}

function resolveRule(
  option: string,
  value: LoginThrottleRuleOptions | false | undefined,
  defaults: Required<LoginThrottleRuleOptions>,
): ThrottleRule | undefined {
  if (value === false) return undefined;
  if (value !== undefined && (typeof value !== 'object' || (value as unknown) === null)) {
    throw new ConfigurationError(
      option,
      'must be an object of { max, window, delay, maxDelay } or false',
    );
  }
  const given = value ?? {};
  rejectUnknownOptions(option, given, ['max', 'window', 'delay', 'maxDelay']);
  const rule: ThrottleRule = {
    max: requireInteger(`${option}.max`, given.max ?? defaults.max, 1, 1_000_000),
    windowMs: durationMs(`${option}.window`, given.window ?? defaults.window),
    delayMs: durationMs(`${option}.delay`, given.delay ?? defaults.delay),
    maxDelayMs: durationMs(`${option}.maxDelay`, given.maxDelay ?? defaults.maxDelay),
  };
  if (rule.maxDelayMs < rule.delayMs) {
    throw new ConfigurationError(`${option}.maxDelay`, 'must not be shorter than delay');
  }
  return Object.freeze(rule);
}
