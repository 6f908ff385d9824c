import { isPromiseLike } from './promise.js';

/** What {@link consumeLimits} needs of a limit (a `RateLimit`). */
interface Consumable<S> {
  consume(subject: S): unknown;
}

/**
 * Counts one call against each limit, in order: `undefined` when every limit answered
 * synchronously, else a promise of their end. The first limit that throws (or
 * rejects) ends it, uncounted by the later ones.
 *
 * @internal
 */
export function consumeLimits<S>(
  limits: readonly Consumable<S>[],
  subject: S,
  start = 0,
): Promise<void> | undefined {
  for (let i = start; i < limits.length; i++) {
    const counted = (limits[i] as Consumable<S>).consume(subject);
    if (isPromiseLike(counted)) {
      return Promise.resolve(counted).then(() => consumeLimits(limits, subject, i + 1));
    }
  }
  return undefined;
}
