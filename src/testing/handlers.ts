import type { RequestListener, ServerResponse } from 'node:http';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { SecurityContext } from '../core/context.js';
import { setUser } from '../fetch/context.js';
import type { FetchUserContext } from '../fetch/security.js';
import { enterContext, type SecuredRequest } from '../node/context.js';
import { refuseInProduction } from './production.js';
import { requireUserOrNull } from './user-check.js';

/**
 * The handler of `withSecurity(transform, handler)` (`portcullis/fetch`) run as `user`
 * (`null`: anonymous), for unit tests of the handler: it receives `{ user }`,
 * `userOf(request)` and `SecurityContext` answer the user, as after a granted request.
 * The transform does not run here (no URL rule, firewall or header): to test those,
 * send a credential through `withSecurity` (`testJwt().bearerFor`, `sessionCookieFor`).
 *
 * @example
 * ```ts
 * const response = await fetchHandlerAs(profileHandler, mockUser('ann'))(
 *   new Request('https://app.test/profile'),
 * );
 * ```
 * @throws TypeError when `user` is not an `AuthenticatedUser` or `null`
 */
export function fetchHandlerAs<Args extends unknown[]>(
  handler: (
    request: Request,
    context: FetchUserContext,
    ...args: Args
  ) => Response | Promise<Response>,
  user: AuthenticatedUser | null,
): (request: Request, ...args: Args) => Promise<Response> {
  refuseInProduction('fetchHandlerAs');
  requireUserOrNull('fetchHandlerAs', user);
  return async (request, ...args) => {
    setUser(request, user);
    return SecurityContext.run(user, () => handler(request, { user }, ...args));
  };
}

/**
 * The handler of `withSecurity(transform, handler)` (`portcullis/node`) run as `user`
 * (`null`: anonymous), for unit tests of the handler: `req.user`, `userOf(req)` and
 * `SecurityContext` (also in the request's `data` and `end` events) answer the user,
 * as after a granted request. The transform does not run here (no URL rule, firewall
 * or header). An error of the handler is not turned into a 500 as `withSecurity`
 * does: it reaches the test runner (a thrown error, an unhandled rejection).
 *
 * @example
 * ```ts
 * createServer(nodeHandlerAs(routes, mockUser('ann', { roles: ['ADMIN'] }))).listen(0);
 * ```
 * @throws TypeError when `user` is not an `AuthenticatedUser` or `null`
 */
export function nodeHandlerAs(
  handler: (req: SecuredRequest, res: ServerResponse) => void | Promise<void>,
  user: AuthenticatedUser | null,
): RequestListener {
  refuseInProduction('nodeHandlerAs');
  requireUserOrNull('nodeHandlerAs', user);
  return (req, res) => {
    enterContext(req, user, () => {
      // A rejection is left unhandled, so the test runner reports it (withSecurity
      // would answer a 500).
      void handler(req as SecuredRequest, res);
    });
  };
}
