import { DEFAULT_DEADLINES, requireDeadline } from '../core/deadline.js';
import { ConfigurationError } from '../core/errors.js';
import { securityEvents, type SecurityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import type { User } from '../core/user.js';
import { rejectUnknownOptions, requireInteger } from '../core/validate.js';
import { DEFAULT_STORE_TIMEOUT_MS } from '../stores/call.js';
import type { RevocationStore } from '../stores/types.js';
import { MemoryRefreshTokenStore } from './memory-refresh-store.js';
import type { RefreshTokenStore } from './refresh-store.js';

/** Options of {@link JwtTokenService} besides its configuration. */
export interface JwtTokenServiceOptions {
  /**
   * Where refresh-token rotation and revocations are recorded. Share one store
   * between processes that serve the same users.
   * @defaultValue a new {@link MemoryRefreshTokenStore} (one process, 100 000 records)
   */
  readonly store?: RefreshTokenStore;
  /**
   * The grace window in seconds (0 to 60): refreshes of the same token within it
   * get the same new pair instead of tripping reuse detection. `0` disables it: any
   * second use of a refresh token revokes its family.
   * @defaultValue `10`
   */
  readonly graceSeconds?: number;
  /**
   * The refresh-token lifetime in seconds (see `refreshExpirationSeconds()`); at least
   * the access-token lifetime.
   * @defaultValue `1_209_600` (14 days)
   */
  readonly refreshExpirationSeconds?: number;
  /** Where refresh events go. @defaultValue `securityEvents` */
  readonly events?: SecurityEvents;
  /**
   * How long the `loadUser` of a refresh may take, in milliseconds (1 to 600,000).
   * Past it `refresh` rejects with a `DeadlineExceededError` (operation `load-user`)
   * and a `deadline-exceeded` event is published; the refresh token is not spent.
   * @defaultValue `5_000`
   */
  readonly loadUserTimeoutMs?: number;
  /**
   * Where access-token revocations are kept (`revokeAccessToken`, and `revokeUser`,
   * which revokes the user's access tokens with their refresh families); checked by
   * the service's `authenticator` on every request. See `JwtAuthenticatorOptions.revocations`.
   * @defaultValue a new `MemoryRevocationStore` (this process only)
   */
  readonly revocations?: RevocationStore | false;
  /**
   * How long one asynchronous call of the refresh-token store or the revocation store
   * may take, in milliseconds (1 to 600,000). Past it the operation fails closed with
   * a `DeadlineExceededError` (503) and a `deadline-exceeded` event.
   * @defaultValue `2_000`
   */
  readonly storeTimeoutMs?: number;
}

/**
 * Finds the user of a refresh token by username, with the current roles and
 * authorities; `null` (or `undefined`) when the account no longer exists.
 *
 * @example
 * ```ts
 * const loadUser: LoadUser = (username) => users.findUser(username);
 * ```
 */
export type LoadUser = (
  username: string,
) => User | null | undefined | Promise<User | null | undefined>;

/** Options of one {@link JwtTokenService.refresh}. */
export interface RefreshOptions {
  /** The HTTP request carrying the refresh token, for the events' request summary. */
  readonly request?: Pick<SecurityRequest, 'method' | 'rawPath' | 'clientAddress'>;
}

/** The validated options with their defaults. @internal */
export interface ServiceOptions {
  readonly store: RefreshTokenStore;
  readonly graceSeconds: number;
  readonly events: SecurityEvents;
  readonly loadUserTimeoutMs: number;
  readonly revocations: RevocationStore | false | undefined;
  readonly storeTimeoutMs: number;
}

const NAMES = [
  'store',
  'graceSeconds',
  'refreshExpirationSeconds',
  'events',
  'loadUserTimeoutMs',
  'revocations',
  'storeTimeoutMs',
];
const STORE_METHODS = ['rotate', 'revokeFamily', 'revokeUser', 'revocationState'] as const;

/** Validates the options (never mutating them) and fills in the defaults. @internal */
export function readServiceOptions(options: JwtTokenServiceOptions): ServiceOptions {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  rejectUnknownOptions('JwtTokenService', options, NAMES);
  const store = options.store ?? new MemoryRefreshTokenStore();
  const candidate = store as unknown as Partial<Record<string, unknown>> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    STORE_METHODS.some((m) => typeof candidate[m] !== 'function')
  ) {
    throw new ConfigurationError(
      'store',
      `must be a RefreshTokenStore (${STORE_METHODS.join(', ')})`,
    );
  }
  const events = options.events ?? securityEvents;
  if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  return {
    store,
    graceSeconds: requireInteger('graceSeconds', options.graceSeconds ?? 10, 0, 60),
    events,
    loadUserTimeoutMs: requireDeadline(
      'loadUserTimeoutMs',
      options.loadUserTimeoutMs ?? DEFAULT_DEADLINES.loadUserMs,
    ),
    revocations: options.revocations,
    storeTimeoutMs: requireDeadline(
      'storeTimeoutMs',
      options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS,
    ),
  };
}
