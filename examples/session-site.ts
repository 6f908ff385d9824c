/**
 * The example's server-rendered site on sealed-cookie sessions: `GET /login` (the
 * form, with the CSRF token), `POST /login`, `POST /logout` and `GET /me` (the
 * user, and a script calling `/trpc` and `/graphql` with the session cookie).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MemoryAuthenticator } from 'portcullis';
import { getCspNonce, getUser } from 'portcullis/node';
import {
  SessionAuthenticator,
  SessionConfig,
  formLogin,
  formLogout,
  safeRedirectTarget,
} from 'portcullis/session';
import { loginPage, mePage } from './session-pages.js';

/** How the example's sessions are set up. */
export interface SessionSiteOptions {
  /**
   * The iron password (at least 32 characters).
   * @defaultValue `SESSION_PASSWORD`, else a random one per start (sessions end with the process)
   */
  readonly password?: string;
  /**
   * `Secure` cookies named `__Host-session`: for HTTPS, e.g. behind a TLS-terminating
   * proxy. Off, the cookie is `session` without `Secure`, so that the example works
   * on plain `http://127.0.0.1`.
   * @defaultValue `SESSION_SECURE=1`
   */
  readonly secure?: boolean;
  /**
   * The site's public origins (`https://app.example.com`), when a proxy hides them
   * from the `Host` header (the CSRF origin check needs them).
   * @defaultValue `SESSION_ORIGIN` (comma-separated), else from `Host`
   */
  readonly origins?: readonly string[];
}

/** What the start-up message says about the sessions (never the password). */
export interface SessionSummary {
  readonly secure: boolean;
  readonly cookieName: string;
  readonly passwordFromEnv: boolean;
}

/** The options read from the environment. */
export function sessionOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): SessionSiteOptions {
  const origins = (env['SESSION_ORIGIN'] ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  return {
    ...(env['SESSION_PASSWORD'] === undefined ? {} : { password: env['SESSION_PASSWORD'] }),
    secure: env['SESSION_SECURE'] === '1',
    origins,
  };
}

/** The session authenticator of the example (`loadUser` revokes sessions whose rights changed). */
export function createSessions(
  options: SessionSiteOptions,
  store: MemoryAuthenticator,
): { sessions: SessionAuthenticator; summary: SessionSummary } {
  const config = new SessionConfig()
    .passwords(options.password ?? randomBytes(32).toString('base64url'))
    .maxAgeHours(8);
  if (options.secure !== true) config.dangerouslyAllowInsecureCookie();
  if (options.origins !== undefined && options.origins.length > 0) config.origins(options.origins);
  const sessions = new SessionAuthenticator(config, {
    loadUser: (username) => store.findUser(username),
  });
  return {
    sessions,
    summary: {
      secure: options.secure === true,
      cookieName: sessions.cookieName,
      passwordFromEnv: options.password !== undefined,
    },
  };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The site's routes, by `METHOD path`. */
export function createSessionSite(
  sessions: SessionAuthenticator,
  store: MemoryAuthenticator,
): Record<string, Handler> {
  const csrfField = sessions.settings.csrfFieldName;
  const login = formLogin({ sessions, credentials: store, defaultTarget: '/me' });
  const logout = formLogout({ sessions });
  return {
    'GET /login': async (req, res) => {
      const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
      const { token, setCookie } = await sessions.csrfToken(req);
      if (setCookie !== undefined) res.appendHeader('set-cookie', setCookie);
      html(
        res,
        loginPage({
          csrfToken: token,
          csrfField,
          // Only a same-origin path is echoed (the login handler checks it again).
          target: safeRedirectTarget(query.get('continue'), ''),
          error: query.has('error'),
          loggedOut: query.has('logout'),
        }),
      );
    },
    'POST /login': login.node,
    'POST /logout': logout.node,
    'GET /me': async (req, res) => {
      const user = getUser(req);
      const nonce = getCspNonce(res);
      if (user === null || nonce === undefined) {
        // The URL rule keeps anonymous requests out; the nonce comes with the headers.
        throw new Error('GET /me needs a user and a CSP nonce');
      }
      const { token, setCookie } = await sessions.csrfToken(req);
      if (setCookie !== undefined) res.appendHeader('set-cookie', setCookie);
      html(res, mePage({ user, csrfToken: token, csrfField, nonce }));
    },
  };
}

function html(res: ServerResponse, body: string): void {
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    // Pages carry a CSRF token: never stored by a cache.
    'cache-control': 'no-store',
  });
  res.end(body);
}
