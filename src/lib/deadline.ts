import { isPromiseLike } from './promise.js';

/** The longest deadline an option accepts, in milliseconds (ten minutes). @internal */
export const MAX_DEADLINE_MS = 600_000;

/**
 * Settles as `work` does, or rejects with what `onTimeout()` returns when `work` has
 * not settled within `timeoutMs` milliseconds. The timer is cleared as soon as `work`
 * settles, so nothing lingers; a rejection of `work` after the deadline is absorbed
 * (never an unhandled rejection). `work` itself cannot be cancelled: it keeps
 * running, only its caller stops waiting.
 *
 * The error is made by the caller (`onTimeout`), so this helper stays a leaf.
 *
 * @example
 * ```ts
 * const ok = await withDeadline(encoder.matches(raw, hash), 5_000, () =>
 *   new DeadlineExceededError('password-encoder', 5_000));
 * ```
 *
 * @internal
 */
export function withDeadline<T>(
  work: PromiseLike<T>,
  timeoutMs: number,
  onTimeout: () => Error,
): Promise<T> {
  // One promise and one timer: this runs for every asynchronous authentication.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      let error: Error;
      try {
        error = onTimeout();
      } catch (thrown) {
        error = thrown instanceof Error ? thrown : new Error('The deadline handler failed');
      }
      reject(error);
    }, timeoutMs);
    // Subscribing handles a rejection of `work` after the deadline, too.
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        // The work's own rejection, passed on as it is.
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(error);
      },
    );
  });
}

/**
 * {@link withDeadline} for a value that may already be there: a plain value is
 * returned as it is (no timer, no promise: the synchronous hot path stays
 * synchronous); a promise gets the deadline.
 *
 * @internal
 */
export function maybeWithDeadline<T>(
  value: T | PromiseLike<T>,
  timeoutMs: number,
  onTimeout: () => Error,
): T | Promise<T> {
  return isPromiseLike(value) ? withDeadline(value, timeoutMs, onTimeout) : value;
}
