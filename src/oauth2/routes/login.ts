import { ConfigurationError } from '../../core/errors.js';
import type { SecurityRequest } from '../../core/request.js';
import type { SecurityRoutes } from '../../core/routes.js';
import type { SecurityResponse } from '../../core/security.js';
import { INTERNAL_SERVER_ERROR } from '../../http/response.js';
import { OAuth2Error } from '../errors.js';
import { startLogin } from './authorization.js';
import { finishLogin } from './callback.js';
import { resolveRoutes, type OAuth2LoginOptions, type RoutesSettings } from './options.js';
import { plain } from './responses.js';
import { REGISTRATION_ID } from '../transaction.js';
import type { OAuth2ClientLike } from '../types.js';

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
 * `paths` are the two patterns (`/oauth2/authorization/{registrationId}`,
 * `/login/oauth2/code/{registrationId}`): one segment below either prefix is the
 * routes', any other path is passed on (`undefined`, e.g. `/oauth2/authorization/a/b`).
 * Unknown registration id: 404; another method than GET: 405. Mount the routes with
 * `securityRoutes(...)` of the adapter, and let anonymous requests reach them.
 *
 * @example
 * ```ts
 * const oauth2 = oauth2Login({ repository, sessions });
 * // rules: .requestMatchers(oauth2.paths, Access.permitAll())
 * app.use(securityRoutes(oauth2)); // portcullis/node (Express), or Hono's honoSecurityRoutes
 * ```
 */
export function oauth2Login(options: OAuth2LoginOptions): SecurityRoutes {
  const settings = resolveRoutes(options);
  const { authorizationPath, callbackPath } = settings;
  if (authorizationPath.startsWith(callbackPath) || callbackPath.startsWith(authorizationPath)) {
    throw new ConfigurationError('callbackPath', 'must not overlap authorizationPath');
  }

  const route = async (request: SecurityRequest): Promise<SecurityResponse> => {
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
    paths: Object.freeze([
      `${authorizationPath}{registrationId}`,
      `${callbackPath}{registrationId}`,
    ]),
    handle: async (request: SecurityRequest): Promise<SecurityResponse | undefined> => {
      const path = request.path;
      const prefix = path.startsWith(authorizationPath)
        ? authorizationPath
        : path.startsWith(callbackPath)
          ? callbackPath
          : undefined;
      // One segment below a prefix, as `paths` says (and Fastify routes): else not ours.
      if (prefix === undefined || path.includes('/', prefix.length)) return undefined;
      try {
        return await route(request);
      } catch {
        // A failing repository or store: never details.
        return INTERNAL_SERVER_ERROR;
      }
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
