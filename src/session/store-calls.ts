import { ConfigurationError } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import { awaitStore, failClosed, type StoreCallSite } from '../stores/call.js';
import type { SessionStore } from './store.js';

type Operation = 'check' | 'touch' | 'revoke';

/**
 * The calls of a `SessionAuthenticator` to its {@link SessionStore}, each failing
 * closed: a store that throws, rejects, answers outside its contract or does not
 * answer within the deadline gives an `UnavailableError` (503 through the pipeline),
 * never an anonymous request or a skipped revocation check.
 *
 * @internal
 */
export class SessionStoreCalls {
  readonly #store: SessionStore;
  readonly #sites: Readonly<Record<Operation, StoreCallSite>>;

  constructor(store: SessionStore, timeoutMs: number, events: SecurityEvents) {
    const candidate = store as Partial<Record<keyof SessionStore, unknown>> | null;
    if (
      typeof candidate !== 'object' ||
      candidate === null ||
      (['isRevoked', 'revokeSession', 'revokeUser', 'touch'] as const).some(
        (name) => typeof candidate[name] !== 'function',
      )
    ) {
      throw new ConfigurationError(
        'store',
        'must be a SessionStore (revokeSession, revokeUser, isRevoked, touch)',
      );
    }
    this.#store = store;
    const site = (operation: string): StoreCallSite => ({
      store: 'session',
      operation,
      timeoutMs,
      events,
    });
    this.#sites = {
      check: site('session-revocation-check'),
      touch: site('session-touch'),
      revoke: site('session-revocation'),
    };
  }

  /** Whether the session is revoked (`'session'`, `'user'`) or not (`false`). */
  async isRevoked(
    sid: string,
    username: string,
    createdAtMs: number,
    request: SecurityRequest,
  ): Promise<false | 'session' | 'user'> {
    const store = this.#store;
    const answer: unknown = await awaitStore(
      this.#sites.check,
      () => store.isRevoked(sid, username, createdAtMs),
      request,
    );
    if (answer === false || answer === 'session' || answer === 'user') return answer;
    throw this.#outsideContract('check', 'isRevoked');
  }

  /** Records activity; the previous activity time, if known. */
  async touch(
    sid: string,
    nowMs: number,
    expiresAtMs: number,
    request: SecurityRequest,
  ): Promise<number | undefined> {
    const store = this.#store;
    const answer: unknown = await awaitStore(
      this.#sites.touch,
      () => store.touch(sid, nowMs, expiresAtMs),
      request,
    );
    if (answer === undefined || (typeof answer === 'number' && !Number.isNaN(answer))) {
      return answer;
    }
    throw this.#outsideContract('touch', 'touch');
  }

  /** Records the end of one session. */
  async revokeSession(sid: string, expiresAtMs: number, request?: SecurityRequest): Promise<void> {
    const store = this.#store;
    await awaitStore(this.#sites.revoke, () => store.revokeSession(sid, expiresAtMs), request);
  }

  /** Records the end of every session of the user created until `atMs`. */
  async revokeUser(username: string, atMs: number, expiresAtMs: number): Promise<void> {
    const store = this.#store;
    await awaitStore(this.#sites.revoke, () => store.revokeUser(username, atMs, expiresAtMs));
  }

  /** A `StoreUnavailableError`: an answer the contract does not allow is no answer. */
  #outsideContract(operation: Operation, method: string): Error {
    return failClosed(
      this.#sites[operation],
      new TypeError(`${method} answered outside its contract`),
    );
  }
}
