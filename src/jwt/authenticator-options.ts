import { requireDeadline } from '../core/deadline.js';
import { ConfigurationError } from '../core/errors.js';
import { securityEvents, type SecurityEvents } from '../core/events.js';
import { rejectUnknownOptions } from '../core/validate.js';
import { DEFAULT_STORE_TIMEOUT_MS } from '../stores/call.js';
import type { RevocationStore } from '../stores/types.js';
import { AccessRevocations } from './access-revocation.js';

/** Options of {@link JwtAuthenticator} besides its configuration. */
export interface JwtAuthenticatorOptions {
  /** Where authentication events go. @defaultValue `securityEvents` */
  readonly events?: SecurityEvents;
  /**
   * Where access-token revocations are kept (`revokeAccessToken`, `revokeUser`),
   * checked on every authentication, cache hits included. Share one store between
   * the authenticators of every instance (`RedisRevocationStore`, `portcullis/redis`).
   * `false` turns revocation off: the check is skipped and the revoke methods throw.
   * @defaultValue a new `MemoryRevocationStore` (this process only) on the configuration's clock
   */
  readonly revocations?: RevocationStore | false;
  /**
   * How long an asynchronous answer of the revocation store may take, in milliseconds
   * (1 to 600,000). Past it the request fails closed: `DeadlineExceededError` (503).
   * @defaultValue `2_000`
   */
  readonly storeTimeoutMs?: number;
}

/**
 * Validates the options of a `JwtAuthenticator` (never mutating them): its events and
 * its revocations (`undefined` with `revocations: false`).
 *
 * @internal
 */
export function readAuthenticatorOptions(
  options: JwtAuthenticatorOptions,
  clock: () => number,
): { readonly events: SecurityEvents; readonly revocations: AccessRevocations | undefined } {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  // A misspelt `revocations` would silently keep a store nobody revokes into.
  rejectUnknownOptions('JwtAuthenticator', options, ['events', 'revocations', 'storeTimeoutMs']);
  const events = options.events ?? securityEvents;
  if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  const timeoutMs = requireDeadline(
    'storeTimeoutMs',
    options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS,
  );
  const revocations =
    options.revocations === false
      ? undefined
      : new AccessRevocations(options.revocations, clock, timeoutMs, events);
  return { events, revocations };
}
