import { deadlineExceeded } from '../core/deadline.js';
import { StoreUnavailableError, UnavailableError } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import { withDeadline } from '../lib/deadline.js';
import { isPromiseLike } from '../lib/promise.js';
import type { MaybePromise } from './types.js';

/** What a request's events summarize. */
type RequestOf = Pick<SecurityRequest, 'method' | 'rawPath' | 'clientAddress'>;

/** Which store call this is, made once per operation (not per request). @internal */
export interface StoreCallSite {
  /** The store, e.g. `session`, `revocation` (in the error, never a key). */
  readonly store: string;
  /** What is asked, e.g. `session-revocation` (the deadline event's operation). */
  readonly operation: string;
  /** The deadline of an asynchronous answer, in milliseconds. */
  readonly timeoutMs: number;
  /** Where the `deadline-exceeded` event goes. */
  readonly events: Pick<SecurityEvents, 'publish'> | undefined;
}

/**
 * Runs one call of a store, failing closed: a synchronous answer is returned as it is
 * (the in-memory stores add no promise to a hot path); a promise gets the deadline
 * of `site`. Whatever the store throws or rejects with becomes an `UnavailableError`
 * (503): its own when it is one (a `StoreUnavailableError`, a full memory store),
 * else a `StoreUnavailableError` with the cause; past the deadline a
 * `DeadlineExceededError` and a `deadline-exceeded` event. Never a 500, never a
 * skipped check.
 *
 * @internal
 */
export function callStore<T>(
  site: StoreCallSite,
  call: () => MaybePromise<T>,
  request?: RequestOf,
): MaybePromise<T> {
  let answer: MaybePromise<T>;
  try {
    answer = call();
  } catch (error) {
    throw failClosed(site, error);
  }
  if (!isPromiseLike(answer)) return answer;
  return withDeadline(answer, site.timeoutMs, () =>
    deadlineExceeded(site.operation, site.timeoutMs, site.events, request),
  ).catch((error: unknown) => {
    throw failClosed(site, error);
  });
}

/** {@link callStore}, always as a promise (for paths that are asynchronous anyway). @internal */
export async function awaitStore<T>(
  site: StoreCallSite,
  call: () => MaybePromise<T>,
  request?: RequestOf,
): Promise<T> {
  return callStore(site, call, request);
}

/** The error a failed store call fails closed with. @internal */
export function failClosed(site: StoreCallSite, error: unknown): UnavailableError {
  if (error instanceof UnavailableError) return error;
  return new StoreUnavailableError(site.store, site.operation, 1, { cause: error });
}

/**
 * The default deadline of one call of a shared store, in milliseconds: shorter than
 * the whole authentication's (10 s), so the event names the store that hung.
 * @internal
 */
export const DEFAULT_STORE_TIMEOUT_MS = 2_000;
