import { DEFAULT_DEADLINES, requireDeadline } from '../core/deadline.js';
import { ConfigurationError } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import type { User } from '../core/user.js';
import { requireInteger } from '../lib/validate.js';
import type { PasswordEncoder } from '../password/index.js';

/** Options of the verified-credential cache of {@link MemoryAuthenticatorOptions.cache}. */
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

/** Options of {@link MemoryAuthenticator}. */
export interface MemoryAuthenticatorOptions {
  /** Checks passwords against the users' encoded passwords. Required before the first request. */
  readonly passwordEncoder?: PasswordEncoder;
  /**
   * The users; usernames must be unique and must not contain `:` (RFC 7617).
   * @defaultValue `[]`
   */
  readonly users?: Iterable<User>;
  /**
   * The verified-credential cache, so repeated HTTP Basic requests do not pay for a
   * slow hash every time; `false` turns it off. Only successes are cached, under an
   * HMAC of (username, password, stored hash) with a random per-instance key: the
   * cache holds no password, and a changed stored hash misses.
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
   * The longest `Authorization` header accepted (and, for
   * {@link MemoryAuthenticator.verifyCredentials}, the longest username plus password),
   * in characters.
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
   * Where authentication events are published.
   * @defaultValue `securityEvents`
   */
  readonly events?: SecurityEvents;
  /**
   * Called after a successful login re-encoded a password that
   * `passwordEncoder.upgradeEncoding()` flagged, so the app can persist the new hash
   * (the in-memory user is already updated). Not awaited; a throw or rejection is
   * reported as a process warning and never fails the login.
   */
  readonly onPasswordUpgrade?: (username: string, encodedPassword: string) => void | Promise<void>;
}

/** The validated form of {@link MemoryAuthenticatorOptions} (without encoder and users). @internal */
export interface ResolvedMemoryOptions {
  readonly cache: {
    readonly maxEntries: number;
    readonly ttlMs: number;
    readonly now?: () => number;
  } | null;
  readonly maxConcurrentVerifications: number;
  readonly maxQueuedVerifications: number;
  readonly maxHeaderLength: number;
  readonly passwordEncoderTimeoutMs: number;
  readonly events: SecurityEvents | undefined;
  readonly onPasswordUpgrade: MemoryAuthenticatorOptions['onPasswordUpgrade'];
}

const OPTIONS = new Set([
  'passwordEncoder',
  'users',
  'cache',
  'maxConcurrentVerifications',
  'maxQueuedVerifications',
  'maxHeaderLength',
  'passwordEncoderTimeoutMs',
  'events',
  'onPasswordUpgrade',
]);
const CACHE_OPTIONS = new Set(['maxEntries', 'ttlMs', 'now']);
const DID_YOU_MEAN: ReadonlyMap<string, string> = new Map([
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
]);

/** Validates the options that are not users or the encoder, into a new object. @internal */
export function resolveMemoryOptions(options: MemoryAuthenticatorOptions): ResolvedMemoryOptions {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  rejectUnknown(options, OPTIONS, '');
  const { events, onPasswordUpgrade } = options;
  if (events !== undefined && !isPublisher(events)) {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  if (onPasswordUpgrade !== undefined && typeof onPasswordUpgrade !== 'function') {
    throw new ConfigurationError('onPasswordUpgrade', 'must be a function');
  }
  return {
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
    events,
    onPasswordUpgrade,
  };
}

function resolveCache(
  cache: CredentialCacheOptions | false | undefined,
): ResolvedMemoryOptions['cache'] {
  if (cache === false) return null;
  if (cache === undefined) return { maxEntries: 1000, ttlMs: 60_000 };
  if (typeof cache !== 'object' || (cache as unknown) === null) {
    throw new ConfigurationError('cache', 'must be false or an object');
  }
  rejectUnknown(cache, CACHE_OPTIONS, 'cache.');
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

function rejectUnknown(options: object, known: ReadonlySet<string>, prefix: string): void {
  for (const key of Object.keys(options)) {
    if (known.has(key)) continue;
    const hint = DID_YOU_MEAN.get(key);
    const suggestion = hint !== undefined && known.has(hint) ? ` (did you mean ${hint}?)` : '';
    throw new ConfigurationError(`${prefix}${key}`, `is not a known option${suggestion}`);
  }
}

function isPublisher(value: unknown): value is SecurityEvents {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { publish?: unknown }).publish === 'function'
  );
}
