import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigurationError } from '../core/errors.js';
import type { SecurityRequest } from '../core/request.js';
import { fetchRequestView, nodeRequestView } from '../http/request-views.js';
import { OAuth2Error } from './errors.js';
import { startLogin } from './routes-authorization.js';
import { finishLogin } from './routes-callback.js';
import { resolveRoutes, type OAuth2LoginOptions, type RoutesSettings } from './routes-options.js';
import { plain, type Outcome } from './routes-outcome.js';
import { REGISTRATION_ID } from './transaction.js';
import type { OAuth2ClientLike } from './types.js';

/** The login routes for both adapter styles. */
export interface OAuth2LoginHandler {
  /**
   * For node `http`, Express, Connect: answers the request and resolves `true` when
   * its path is one of the routes, else resolves `false` without touching `res`.
   */
  readonly node: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  /**
   * For the Fetch API (Hono, Next.js route handlers, Bun, Deno): the answer, or
   * `undefined` for other paths. `clientAddress` is the client's socket address where
   * the runtime tells it (e.g. Hono's `getConnInfo(c).remote.address`): without it,
   * the callback throttle counts nothing.
   */
  readonly fetch: (request: Request, clientAddress?: string) => Promise<Response | undefined>;
}

/**
 * The OAuth2 / OpenID Connect login routes (authorization code flow with PKCE, state
 * and nonce), logging users in with sealed-cookie sessions:
 *
 * - `GET /oauth2/authorization/{registrationId}[?continue=/path]` stores the login
 *   transaction (state, PKCE verifier, nonce, issuer, return target) in a short-lived
 *   sealed `HttpOnly; SameSite=Lax` cookie and redirects (302) to the provider.
 * - `GET /login/oauth2/code/{registrationId}` (the redirect URI) checks the callback
 *   against that transaction (one use only, on every instance sharing the
 *   `spentTransactions` store; a callback for one provider replayed at another is
 *   refused), lets the client validate it and exchange the code, maps the
 *   provider's user with `mapper`, starts a fresh session and redirects (303) to the
 *   saved target. Any failure: no session, `303 /login?error=oauth2`, an
 *   `authentication-failure` event (method `oauth2`); never the provider's text.
 *   Callbacks are counted per client address by `throttle`: past its limit, a
 *   browser goes to `/login?error=throttled` and another client gets 429.
 *
 * Unknown registration id: 404; another method than GET: 405.
 *
 * @example
 * ```ts
 * const oauth2 = oauth2Login({ repository, sessions });
 * // node / Express
 * app.use((req, res, next) => void oauth2.node(req, res).then((done) => done || next(), next));
 * // Fetch (Hono)
 * app.use(async (c, next) => (await oauth2.fetch(c.req.raw)) ?? next());
 * ```
 */
export function oauth2Login(options: OAuth2LoginOptions): OAuth2LoginHandler {
  const settings = resolveRoutes(options);
  const { authorizationPath, callbackPath } = settings;
  if (authorizationPath.startsWith(callbackPath) || callbackPath.startsWith(authorizationPath)) {
    throw new ConfigurationError('callbackPath', 'must not overlap authorizationPath');
  }
  const matches = (path: string): boolean =>
    path.startsWith(authorizationPath) || path.startsWith(callbackPath);

  const route = async (request: SecurityRequest): Promise<Outcome> => {
    if (request.method !== 'GET') return plain(405, 'Method Not Allowed', { allow: 'GET' });
    const path = request.path;
    const authorization = path.startsWith(authorizationPath);
    const id = path.slice((authorization ? authorizationPath : callbackPath).length);
    const client = REGISTRATION_ID.test(id) ? await findClient(settings, id) : undefined;
    if (client === undefined) return plain(404, 'Not Found');
    return authorization
      ? startLogin(settings, client, id, request)
      : finishLogin(settings, client, id, request);
  };

  return Object.freeze({
    node: async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
      const request = nodeRequestView(req);
      if (!matches(request.path)) return false;
      let outcome: Outcome;
      try {
        outcome = await route(request);
      } catch {
        // A failing repository or store: never an unhandled rejection, never details.
        outcome = plain(500, 'Internal Server Error');
      }
      if (res.headersSent) return true;
      for (const cookie of outcome.setCookies) res.appendHeader('set-cookie', cookie);
      res.writeHead(outcome.status, outcome.headers);
      res.end(outcome.body);
      return true;
    },
    fetch: async (request: Request, clientAddress?: string): Promise<Response | undefined> => {
      // A runtime handing its own second argument (Bun's server, a Worker's env) gives no address.
      const address = typeof clientAddress === 'string' ? clientAddress : undefined;
      const security = fetchRequestView(request, address);
      if (!matches(security.path)) return undefined;
      let outcome: Outcome;
      try {
        outcome = await route(security);
      } catch {
        outcome = plain(500, 'Internal Server Error');
      }
      const headers = new Headers(outcome.headers);
      for (const cookie of outcome.setCookies) headers.append('set-cookie', cookie);
      return new Response(outcome.body === '' ? null : outcome.body, {
        status: outcome.status,
        headers,
      });
    },
  });
}

/** The client registered under `id`, or `undefined` (a repository may throw "unknown"). */
async function findClient(
  settings: RoutesSettings,
  id: string,
): Promise<OAuth2ClientLike | undefined> {
  try {
    return (await settings.clients.get(id)) ?? undefined;
  } catch (error) {
    if (error instanceof OAuth2Error && error.code === 'ERR_OAUTH2_UNKNOWN_REGISTRATION') {
      return undefined;
    }
    throw error;
  }
}
