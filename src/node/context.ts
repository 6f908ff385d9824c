import { AsyncResource } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { SecurityContext } from '../core/context.js';

const users = new WeakMap<IncomingMessage, AuthenticatedUser | null>();

/** A node request after portcullis ran: `user` is the authenticated user or `null`. */
export type SecuredRequest<R extends IncomingMessage = IncomingMessage> = R & {
  user: AuthenticatedUser | null;
};

/**
 * The user portcullis authenticated for this request (`null` when anonymous or when
 * portcullis did not run for it). Unlike `req.user`, another library cannot
 * overwrite it.
 *
 * @example
 * ```ts
 * import { userOf } from 'portcullis/node';
 * app.get('/me', (req, res) => res.json(userOf(req)));
 * ```
 */
export function userOf(req: IncomingMessage): AuthenticatedUser | null {
  return users.get(req) ?? null;
}

/**
 * Records the user on the request (`req.user` and {@link userOf}) and runs `next`
 * inside the `SecurityContext`. The request's events (`data`, `end`) are bound to
 * that context too, so handlers that run after a body parser still see the user.
 *
 * @internal
 */
export function enterContext(
  req: IncomingMessage,
  user: AuthenticatedUser | null,
  next: () => void,
): void {
  users.set(req, user);
  (req as SecuredRequest).user = user;
  SecurityContext.run(user, () => {
    const resource = new AsyncResource('portcullis.request');
    // eslint-disable-next-line @typescript-eslint/unbound-method -- re-bound to `this` below
    const emit = req.emit;
    req.emit = function (this: IncomingMessage, ...args: Parameters<typeof emit>) {
      return resource.runInAsyncScope(emit, this, ...args);
    } as typeof emit;
    next();
  });
}
