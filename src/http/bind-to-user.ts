import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { SecurityContext } from '../core/context.js';

/**
 * A subscription's async iterable whose every step runs with `user` in the
 * `SecurityContext`: the adapter pulls the events later, outside the middleware
 * call, so the generator's body would otherwise see the adapter's context.
 * Anything else (an observable, a plain value) is returned as it is.
 *
 * @internal
 */
export function bindToUser(data: unknown, user: AuthenticatedUser | null): unknown {
  if (typeof data !== 'object' || data === null || !(Symbol.asyncIterator in data)) return data;
  const iterable = data as AsyncIterable<unknown>;
  return {
    [Symbol.asyncIterator](): AsyncIterator<unknown> {
      const iterator = SecurityContext.run(user, () => iterable[Symbol.asyncIterator]());
      const bound: AsyncIterator<unknown> = {
        next: (...args: [] | [unknown]) => SecurityContext.run(user, () => iterator.next(...args)),
      };
      const finish = iterator.return?.bind(iterator);
      const fail = iterator.throw?.bind(iterator);
      if (finish)
        bound.return = (value?: unknown) => SecurityContext.run(user, () => finish(value));
      if (fail) bound.throw = (error?: unknown) => SecurityContext.run(user, () => fail(error));
      return bound;
    },
  };
}
