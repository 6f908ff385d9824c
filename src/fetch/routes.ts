import type { SecurityRoutes } from '../core/routes.js';
import { fetchBodyReader } from '../http/body.js';
import { fetchRequestView } from '../http/request-views.js';
import { answerOf, checkRoutes, toFetchResponse } from '../http/response.js';
import type { HonoLikeContext, HonoLikeMiddleware } from './hono.js';

/**
 * Mounts {@link SecurityRoutes} — `formLogin`, `formLogout` (`portcullis/session`),
 * `oauth2Login` (`portcullis/oauth2`), `tokenEndpoints` (`portcullis/jwt`) — for the
 * Fetch API (Next.js route handlers, Bun, Deno, Workers): the answer of the first
 * route that owns the request, or `undefined` for any other request (the body is
 * then untouched: pass it on). `clientAddress` is the client's socket address where
 * the runtime tells it (Bun's `server.requestIP(request)`, Deno's
 * `info.remoteAddr.hostname`): without it, a login throttle counts attempts by
 * username only and the refresh and OAuth2 callback throttles count nothing. A route
 * that fails answers 500, without details.
 *
 * @example
 * ```ts
 * import { securityRoutes, withSecurity } from 'portcullis/fetch';
 * const routes = securityRoutes(tokenEndpoints({ authenticator, tokens, users }));
 * export default {
 *   fetch: withSecurity(transform, async (request) =>
 *     (await routes(request)) ?? new Response('the other routes')),
 * };
 * ```
 */
export function securityRoutes(
  ...routes: readonly SecurityRoutes[]
): (request: Request, clientAddress?: string) => Promise<Response | undefined> {
  const mounted = checkRoutes(routes);
  return async function portcullisRoutes(request, clientAddress) {
    // A runtime handing its own second argument (Bun's server, a Worker's env) gives no address.
    const address = typeof clientAddress === 'string' ? clientAddress : undefined;
    const response = await answerOf(
      mounted,
      fetchRequestView(request, address),
      fetchBodyReader(request),
    );
    return response === undefined ? undefined : toFetchResponse(response);
  };
}

/**
 * Hono middleware mounting {@link SecurityRoutes} (see {@link securityRoutes}): a
 * request one of the routes owns is answered, any other goes on to `next()`. The
 * client's address is read where the runtime puts it on Hono's `c.env`, as Hono's
 * `getConnInfo` does: `@hono/node-server` (`incoming.socket.remoteAddress`), Bun
 * (`requestIP`) and Deno (`remoteAddr.hostname`); elsewhere it is unknown (see
 * {@link securityRoutes} for what that means to the throttles).
 *
 * @example
 * ```ts
 * import { honoSecurity, honoSecurityRoutes } from 'portcullis/fetch';
 * app.use(honoSecurity(transform));
 * app.use(honoSecurityRoutes(formLogin({ sessions, credentials }), oauth2Login({ repository, sessions })));
 * app.get('/login', (c) => c.html(loginPage()));
 * ```
 */
export function honoSecurityRoutes(...routes: readonly SecurityRoutes[]): HonoLikeMiddleware {
  const mounted = checkRoutes(routes);
  return async function portcullisHonoRoutes(c, next) {
    const request = c.req.raw;
    const response = await answerOf(
      mounted,
      fetchRequestView(request, honoClientAddress(c)),
      fetchBodyReader(request),
    );
    if (response !== undefined) return toFetchResponse(response);
    await next();
    return undefined;
  };
}

/**
 * The client's socket address from Hono's `c.env`, where the runtime's server put
 * its connection: `@hono/node-server`, Bun, Deno. `undefined` elsewhere.
 *
 * @internal
 */
export function honoClientAddress(c: HonoLikeContext): string | undefined {
  const env = c.env as Readonly<Record<string, unknown>> | null | undefined;
  if (typeof env !== 'object' || env === null) return undefined;
  let address: unknown;
  try {
    const { incoming, requestIP, remoteAddr } = env;
    if (typeof incoming === 'object' && incoming !== null) {
      // @hono/node-server: the node request
      address = (incoming as { socket?: { remoteAddress?: unknown } }).socket?.remoteAddress;
    } else if (typeof requestIP === 'function') {
      // Bun's server
      const found = (requestIP as (request: Request) => { address?: unknown } | null).call(
        env,
        c.req.raw,
      );
      address = found?.address;
    } else if (typeof remoteAddr === 'object' && remoteAddr !== null) {
      // Deno's ServeHandlerInfo
      address = (remoteAddr as { hostname?: unknown }).hostname;
    }
  } catch {
    return undefined;
  }
  return typeof address === 'string' && address !== '' ? address : undefined;
}
