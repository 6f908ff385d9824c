import type { SecurityRequest } from './request.js';
import type { SecurityResponse } from './security.js';

/**
 * Reads a request body of at most `maxBytes`: the bytes, or `undefined` as soon as the
 * body goes past the limit (reading stops there; the rest is never read). Rejects
 * when the body cannot be read (the client went away).
 */
export type BodyReader = (maxBytes: number) => Promise<Uint8Array | undefined>;

/**
 * Routes portcullis answers itself — form login and logout, the OAuth2 login routes,
 * the JSON token endpoints — in one shape that every adapter mounts:
 * `securityRoutes(...routes)` of `portcullis/node` (Connect/Express middleware),
 * `portcullis/fetch` (a Fetch handler, and `honoSecurityRoutes` for Hono) and
 * `portcullis/fastify` (a plugin).
 *
 * @example
 * ```ts
 * const login = formLogin({ sessions, credentials });
 * // the rule that lets anonymous requests reach the routes
 * AuthorizationManager.requestMatcher().requestMatchers(login.paths, Access.permitAll());
 * ```
 */
export interface SecurityRoutes {
  /**
   * The path patterns of the routes (the path-pattern syntax of `requestMatchers`,
   * e.g. `/login` or `/oauth2/authorization/{registrationId}`): what a
   * `requestMatchers(routes.paths, Access.permitAll())` rule takes, and what the
   * Fastify plugin registers (`{name}` as `:name`).
   */
  readonly paths: readonly string[];
  /**
   * The methods the routes answer on their paths, upper case; for any other method
   * `handle` answers `undefined`. Absent: every method (the routes answer 405 to the
   * methods they do not serve). The Fastify plugin registers these.
   */
  readonly methods?: readonly string[];
  /**
   * The answer to a request, reading the body with `readBody` when the route needs
   * it; `undefined` when the request is not one of the routes' (another path or
   * method): pass it on. Never rejects for what the client sent: a store that fails
   * or a deadline passed answers 503 with `Retry-After`, a bug 500. Rejects only when
   * `readBody` does (the client went away mid-body).
   */
  handle(request: SecurityRequest, readBody: BodyReader): Promise<SecurityResponse | undefined>;
}
