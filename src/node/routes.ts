import type { SecurityRoutes } from '../core/routes.js';
import { nodeBodyReader } from '../http/body.js';
import { nodeRequestView } from '../http/request-views.js';
import { answerOf, checkRoutes, writeNodeResponse } from '../http/response.js';
import type { ConnectMiddleware } from './security.js';

/**
 * Mounts {@link SecurityRoutes} — `formLogin`, `formLogout` (`portcullis/session`),
 * `oauth2Login` (`portcullis/oauth2`), `tokenEndpoints` (`portcullis/jwt`) — as one
 * Connect/Express middleware: a request one of the routes owns is answered (the
 * first that owns it, in order), any other is passed on with `next()`, untouched.
 * The routes read the request as the security pipeline does (the socket's address,
 * TLS) and the body from the stream, up to their limit (a 413 closes the
 * connection). A route that fails answers 500, without details.
 *
 * In a plain node `http` server, call it with the rest of the application as `next`.
 *
 * @example
 * ```ts
 * import { securityRoutes, withSecurity } from 'portcullis/node';
 * const routes = securityRoutes(formLogin({ sessions, credentials }), formLogout({ sessions }));
 * app.use(security(transform)); // Express: the pipeline first
 * app.use(routes);
 * // plain node http
 * createServer(withSecurity(transform, (req, res) => routes(req, res, () => {
 *   // … the other routes
 * })));
 * ```
 */
export function securityRoutes(...routes: readonly SecurityRoutes[]): ConnectMiddleware {
  const mounted = checkRoutes(routes);
  return function portcullisRoutes(req, res, next) {
    const answer = answerOf(mounted, nodeRequestView(req), nodeBodyReader(req));
    if (answer === undefined) {
      next();
      return;
    }
    void answer.then(
      (response) => {
        if (response === undefined) next();
        else writeNodeResponse(res, response);
      },
      // answerOf never rejects; a throwing next() or writer is Connect's to see.
      next,
    );
  };
}
