import { DEFAULT_DEADLINES, requireDeadline } from '../core/deadline.js';
import { ConfigurationError } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import { rejectUnknownOptions, requireInteger } from '../core/validate.js';
import type { PasswordEncoder } from '../password/index.js';
import type { UserChangeNotifier } from '../stores/types.js';
import { throttleOption, type LoginThrottle } from '../throttle/login-throttle.js';
import type { UserRepository } from '../users/repository.js';

/** Options of the verified-credential cache of {@link PasswordAuthenticatorOptions.cache}. */
export interface CredentialCacheOptions {
  /**
   * How many verified credentials are remembered; the least recently used is dropped first.
   * @defaultValue `1000`
   */
  readonly maxEntries?: number;
  /**
   * How long a verified credential is remembered, in milliseconds (not extended by use).
   * @defaultValue `60_000` (one minute)
   */
  readonly ttlMs?: number;
  /**
   * The monotonic clock, in milliseconds (for tests).
   * @defaultValue `() => performance.now()`
   */
  readonly now?: () => number;
}

/**
 * What every password authenticator over a user repository takes
 * (`RepositoryAuthenticator`, `MemoryAuthenticator`).
 */
export interface PasswordAuthenticatorOptions {
  /** Checks passwords against the users' encoded passwords. Required before the first request. */
  readonly passwordEncoder?: PasswordEncoder;
  /**
   * The verified-credential cache, so repeated HTTP Basic requests do not pay for a
   * slow hash (nor a repository round trip) every time; `false` turns it off. Only
   * successes are cached, under an HMAC of (username, password) with a random
   * per-instance key: the cache holds no password. An entry lives `ttlMs` at most,
   * and is dropped at once when the user's change is announced (see `userChanges`).
   * @defaultValue `{ maxEntries: 1000, ttlMs: 60_000 }`
   */
  readonly cache?: CredentialCacheOptions | false;
  /**
   * How many password verifications run at once (hashes run on libuv's thread pool,
   * 4 threads by default, shared with `fs` and `dns`).
   * @defaultValue `2`
   */
  readonly maxConcurrentVerifications?: number;
  /**
   * How many verifications may wait for a slot; beyond that an attempt fails at once
   * (no user, event reason `too-many-attempts`).
   * @defaultValue `1000`
   */
  readonly maxQueuedVerifications?: number;
  /**
   * The longest `Authorization` header accepted (and, for `verifyCredentials` and
   * `attemptCredentials`, the longest username plus password), in characters.
   * @defaultValue `8192`
   */
  readonly maxHeaderLength?: number;
  /**
   * How long one call of the password encoder (`matches`, and `encode` for the dummy
   * hash and a password upgrade) may take, in milliseconds (1 to 600,000). Past it
   * the login fails closed: `DeadlineExceededError` (operation `password-encoder`;
   * 503 through `SecurityTransform`), a `deadline-exceeded` event, and the
   * verification slot is given back, so an encoder that never settles cannot hold
   * every slot and block all logins. An upgrade that times out is skipped.
   * @defaultValue `5_000`
   */
  readonly passwordEncoderTimeoutMs?: number;
  /**
   * How long one call of the user repository (`findByUsername`, `updatePassword`)
   * may take, in milliseconds (1 to 600,000). Past it the login fails closed:
   * `DeadlineExceededError` (operation `user-repository`; 503), a
   * `deadline-exceeded` event. A repository that throws or rejects gives a
   * `StoreUnavailableError` (503) the same way.
   * @defaultValue `5_000`
   */
  readonly repositoryTimeoutMs?: number;
  /**
   * Tells every instance that a user changed, so each drops the user's cached
   * credentials at once: this authenticator listens to it, and publishes through it
   * after a password upgrade and on `userChanged(username)`. Use the Redis notifier
   * of `portcullis/redis` when several instances share the users.
   * @defaultValue a new `MemoryUserChangeNotifier` (this process only)
   */
  readonly userChanges?: UserChangeNotifier;
  /**
   * Where authentication events are published.
   * @defaultValue `securityEvents`
   */
  readonly events?: SecurityEvents;
  /**
   * Slows password guessing (see `LoginThrottle`): after 5 failures for a username,
   * or 100 from a client address, in 15 minutes, attempts are refused before any
   * hashing with 429 and `Retry-After`, for growing delays. Share one throttle (on a
   * shared store across instances) with the form login, token endpoints and OAuth2
   * routes; `false` turns throttling off (only behind another limiter).
   * @defaultValue a new `LoginThrottle()`: memory counters of this authenticator only,
   *   client addresses from the socket (no proxy trusted)
   */
  readonly throttle?: LoginThrottle | false;
  /**
   * Called after a successful login re-encoded a password that
   * `passwordEncoder.upgradeEncoding()` flagged and the repository stored it. Not
   * awaited; a throw or rejection is reported as a process warning and never fails
   * the login.
   */
  readonly onPasswordUpgrade?: (username: string, encodedPassword: string) => void | Promise<void>;
}

/** Options of `RepositoryAuthenticator`. */
export interface RepositoryAuthenticatorOptions<
  R extends UserRepository = UserRepository,
> extends PasswordAuthenticatorOptions {
  /** Where the users come from. */
  readonly users: R;
  /** Checks passwords against the users' encoded passwords. */
  readonly passwordEncoder: PasswordEncoder;
}

/** The validated form of {@link PasswordAuthenticatorOptions} (without encoder and users). @internal */
export interface ResolvedAuthenticatorOptions {
  readonly cache: {
    readonly maxEntries: number;
    readonly ttlMs: number;
    readonly now?: () => number;
  } | null;
  readonly maxConcurrentVerifications: number;
  readonly maxQueuedVerifications: number;
  readonly maxHeaderLength: number;
  readonly passwordEncoderTimeoutMs: number;
  readonly repositoryTimeoutMs: number;
  readonly userChanges: UserChangeNotifier | undefined;
  readonly events: SecurityEvents | undefined;
  readonly onPasswordUpgrade: PasswordAuthenticatorOptions['onPasswordUpgrade'];
  readonly throttle: LoginThrottle | undefined;
}

/** The option names of {@link RepositoryAuthenticatorOptions}. @internal */
export const AUTHENTICATOR_OPTIONS: ReadonlySet<string> = new Set([
  'passwordEncoder',
  'users',
  'cache',
  'maxConcurrentVerifications',
  'maxQueuedVerifications',
  'maxHeaderLength',
  'passwordEncoderTimeoutMs',
  'repositoryTimeoutMs',
  'userChanges',
  'events',
  'onPasswordUpgrade',
  'throttle',
]);
const CACHE_OPTIONS = new Set(['maxEntries', 'ttlMs', 'now']);
const DID_YOU_MEAN: Readonly<Record<string, string>> = Object.fromEntries([
  ['encoder', 'passwordEncoder'],
  ['user', 'users'],
  ['ttl', 'ttlMs'],
  ['maxAge', 'ttlMs'],
  ['maxSize', 'maxEntries'],
  ['max', 'maxEntries'],
  ['maxConcurrency', 'maxConcurrentVerifications'],
  ['concurrency', 'maxConcurrentVerifications'],
  ['eventPublisher', 'events'],
  ['timeout', 'passwordEncoderTimeoutMs'],
  ['timeoutMs', 'passwordEncoderTimeoutMs'],
  ['repository', 'users'],
  ['userRepository', 'users'],
  ['notifier', 'userChanges'],
  ['limiter', 'throttle'],
  ['rateLimit', 'throttle'],
]);

/**
 * Validates the options that are not users or the encoder, into a new object;
 * `known` are the option names the caller accepts.
 *
 * @internal
 */
export function resolveAuthenticatorOptions(
  options: PasswordAuthenticatorOptions,
  known: ReadonlySet<string> = AUTHENTICATOR_OPTIONS,
): ResolvedAuthenticatorOptions {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  rejectUnknown('RepositoryAuthenticator', options, known, '');
  const { events, onPasswordUpgrade, userChanges } = options;
  if (userChanges !== undefined && !isNotifier(userChanges)) {
    throw new ConfigurationError(
      'userChanges',
      'must be a UserChangeNotifier (publish, subscribe)',
    );
  }
  if (events !== undefined && !isPublisher(events)) {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  if (onPasswordUpgrade !== undefined && typeof onPasswordUpgrade !== 'function') {
    throw new ConfigurationError('onPasswordUpgrade', 'must be a function');
  }
  return {
    throttle: throttleOption(options.throttle, events, true),
    cache: resolveCache(options.cache),
    maxConcurrentVerifications: requireInteger(
      'maxConcurrentVerifications',
      options.maxConcurrentVerifications ?? 2,
      1,
      1024,
    ),
    maxQueuedVerifications: requireInteger(
      'maxQueuedVerifications',
      options.maxQueuedVerifications ?? 1000,
      0,
      1_000_000,
    ),
    maxHeaderLength: requireInteger(
      'maxHeaderLength',
      options.maxHeaderLength ?? 8192,
      64,
      1 << 20,
    ),
    passwordEncoderTimeoutMs: requireDeadline(
      'passwordEncoderTimeoutMs',
      options.passwordEncoderTimeoutMs ?? DEFAULT_DEADLINES.passwordEncoderMs,
    ),
    repositoryTimeoutMs: requireDeadline(
      'repositoryTimeoutMs',
      options.repositoryTimeoutMs ?? DEFAULT_DEADLINES.loadUserMs,
    ),
    userChanges,
    events,
    onPasswordUpgrade,
  };
}

function resolveCache(
  cache: CredentialCacheOptions | false | undefined,
): ResolvedAuthenticatorOptions['cache'] {
  if (cache === false) return null;
  if (cache === undefined) return { maxEntries: 1000, ttlMs: 60_000 };
  if (typeof cache !== 'object' || (cache as unknown) === null) {
    throw new ConfigurationError('cache', 'must be false or an object');
  }
  rejectUnknown('cache', cache, CACHE_OPTIONS, 'cache.');
  const maxEntries = requireInteger('cache.maxEntries', cache.maxEntries ?? 1000, 1, 10_000_000);
  const ttlMs = requireInteger('cache.ttlMs', cache.ttlMs ?? 60_000, 1, 86_400_000);
  if (cache.now !== undefined && typeof cache.now !== 'function') {
    throw new ConfigurationError('cache.now', 'must be a function returning milliseconds');
  }
  return cache.now === undefined ? { maxEntries, ttlMs } : { maxEntries, ttlMs, now: cache.now };
}

/** Validates a password encoder. @internal */
export function requireEncoder(option: string, encoder: unknown): PasswordEncoder {
  const candidate = encoder as Partial<Record<keyof PasswordEncoder, unknown>> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.encode !== 'function' ||
    typeof candidate.matches !== 'function' ||
    typeof candidate.upgradeEncoding !== 'function'
  ) {
    throw new ConfigurationError(
      option,
      'must be a PasswordEncoder (with encode, matches and upgradeEncoding)',
    );
  }
  return encoder as PasswordEncoder;
}

/** Throws a `ConfigurationError` for an option not in `known`, with a "did you mean". @internal */
export function rejectUnknown(
  owner: string,
  options: object,
  known: ReadonlySet<string>,
  prefix: string,
): void {
  rejectUnknownOptions(owner, options, known, {
    aliases: DID_YOU_MEAN,
    path: (key) => `${prefix}${key}`,
  });
}

function isPublisher(value: unknown): value is SecurityEvents {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { publish?: unknown }).publish === 'function'
  );
}

function isNotifier(value: unknown): value is UserChangeNotifier {
  const candidate = value as Partial<Record<keyof UserChangeNotifier, unknown>> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.publish === 'function' &&
    typeof candidate.subscribe === 'function'
  );
}
