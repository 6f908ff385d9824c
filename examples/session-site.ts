/**
 * The example's server-rendered site on sealed-cookie sessions: `GET /login` (the
 * form, with the CSRF token), `POST /login`, `POST /logout` and `GET /me` (the
 * user, and a script calling `/trpc` and `/graphql` with the session cookie); and,
 * with the development OpenID provider on, the OAuth2 login routes
 * (`/oauth2/authorization/local`, `/login/oauth2/code/local`).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LoginThrottle, SecurityRoutes, SpentIdStore, UserRepository } from 'portcullis';
import { getCspNonce, userOf } from 'portcullis/node';
import {
  OAuth2ClientRepository,
  OAuth2Config,
  OAuth2Provider,
  oauth2Login,
} from 'portcullis/oauth2';
import {
  SessionAuthenticator,
  SessionConfig,
  formLogin,
  formLogout,
  safeRedirectTarget,
  type CredentialsVerifier,
  type SessionStore,
} from 'portcullis/session';
import type { DevProviderAccount } from './oauth2-dev-provider.js';
import { loginPage, mePage } from './session-pages.js';

/** The registration id of the development provider: `/oauth2/authorization/local`. */
export const OAUTH2_REGISTRATION_ID = 'local';

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

/**
 * The session authenticator of the example (`loadUser` revokes sessions whose rights
 * changed); its revocations go to `store` (a shared one with Redis), else to memory.
 */
export function createSessions(
  options: SessionSiteOptions,
  users: UserRepository,
  store?: SessionStore,
): { sessions: SessionAuthenticator; summary: SessionSummary } {
  const config = new SessionConfig()
    .passwords(options.password ?? randomBytes(32).toString('base64url'))
    .maxAgeHours(8);
  if (options.secure !== true) config.dangerouslyAllowInsecureCookie();
  if (options.origins !== undefined && options.origins.length > 0) config.origins(options.origins);
  const sessions = new SessionAuthenticator(config, {
    loadUser: (username) => users.findByUsername(username),
    ...(store === undefined ? {} : { store }),
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

/** What the site's pages offer besides the login form. */
export interface SessionSiteFeatures {
  /** Show "Log in with the local test provider" on the login page. @defaultValue `false` */
  readonly oauth2?: boolean;
}

/** The site: its pages by `METHOD path`, and the form routes portcullis answers. */
export interface SessionSite {
  /** `GET /login` and `GET /me`. */
  readonly pages: Record<string, Handler>;
  /** `POST /login` and `POST /logout` (`formLogin`, `formLogout`), for `securityRoutes`. */
  readonly routes: readonly SecurityRoutes[];
}

/** The site's pages and form routes. */
export function createSessionSite(
  sessions: SessionAuthenticator,
  credentials: CredentialsVerifier,
  features: SessionSiteFeatures = {},
): SessionSite {
  const csrfField = sessions.settings.csrfFieldName;
  const routes = [
    formLogin({ sessions, credentials, defaultTarget: '/me' }),
    formLogout({ sessions }),
  ];
  const pages: Record<string, Handler> = {
    'GET /login': async (req, res) => {
      const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
      const { token, setCookie } = await sessions.csrfToken(req);
      if (setCookie !== undefined) res.appendHeader('set-cookie', setCookie);
      // Only a same-origin path is echoed (the login handlers check it again).
      const target = safeRedirectTarget(query.get('continue'), '');
      const error = query.get('error');
      html(
        res,
        loginPage({
          csrfToken: token,
          csrfField,
          target,
          error:
            error === null
              ? false
              : error === 'oauth2' || error === 'throttled'
                ? error
                : 'credentials',
          loggedOut: query.has('logout'),
          oauth2Href:
            features.oauth2 === true
              ? `/oauth2/authorization/${OAUTH2_REGISTRATION_ID}?continue=${encodeURIComponent(target === '' ? '/me' : target)}`
              : undefined,
        }),
      );
    },
    'GET /me': async (req, res) => {
      const user = userOf(req);
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
  return { pages, routes };
}

/**
 * The development provider's accounts: the demo users (same names and passwords), and
 * `stranger`, whom the example has no account for: the mapper refuses that login.
 */
export function devProviderAccounts(
  users: readonly { readonly username: string; readonly password: string }[],
): DevProviderAccount[] {
  return [
    ...users.map(({ username, password }) => ({
      subject: username,
      password,
      email: `${username}@example.com`,
    })),
    {
      subject: 'stranger',
      password: 'stranger-password',
      email: 'stranger@example.com',
      note: 'no account in the example: the login is refused',
    },
  ];
}

/** Options of {@link createOAuth2Site}. */
export interface OAuth2SiteOptions {
  /**
   * The example's own origin as the browser sees it (`http://127.0.0.1:3000`): the
   * redirect URI registered at the provider is `<appOrigin>/login/oauth2/code/local`.
   */
  readonly appOrigin: string;
  /** The development provider's port on 127.0.0.1. @defaultValue `0` (a free port) */
  readonly providerPort?: number;
  /** The provider's accounts (their subjects are the usernames typed at the provider). */
  readonly accounts: readonly DevProviderAccount[];
  /**
   * Where spent login transactions are recorded (a shared store with Redis, so a
   * callback replayed on another instance is refused). @defaultValue this process only
   */
  readonly spentTransactions?: SpentIdStore | undefined;
  /** Counts failed callbacks per client address (the app's one login throttle). */
  readonly throttle?: LoginThrottle | undefined;
}

/** The OAuth2 login of the example, against its development provider. */
export interface OAuth2Site {
  /** The routes `GET /oauth2/authorization/local` and `GET /login/oauth2/code/local`. */
  readonly login: SecurityRoutes;
  /** The provider's issuer, `http://127.0.0.1:<port>`. */
  readonly issuer: string;
  /** Stops the provider. */
  close(): Promise<void>;
}

/**
 * Starts the development OpenID provider (`oidc-provider`, loaded only now) and the
 * OAuth2 login routes that use it. The provider's subject names the example's user
 * of the same username, whose roles and authorities come from the example's users;
 * a subject without an account here is refused (never matched by email).
 */
export async function createOAuth2Site(
  options: OAuth2SiteOptions,
  sessions: SessionAuthenticator,
  users: UserRepository,
): Promise<OAuth2Site> {
  const { startDevProvider } = await import('./oauth2-dev-provider.js');
  const redirectUri = new URL(`/login/oauth2/code/${OAUTH2_REGISTRATION_ID}`, options.appOrigin)
    .href;
  const provider = await startDevProvider({
    redirectUri,
    accounts: options.accounts,
    ...(options.providerPort === undefined ? {} : { port: options.providerPort }),
  });
  try {
    const config = new OAuth2Config(provider.clientId, provider.clientSecret, redirectUri)
      .provider(OAuth2Provider.oidc({ issuer: provider.issuer, name: OAUTH2_REGISTRATION_ID }))
      // The provider asks for the password at every login, so a logged-out user can
      // log in as someone else (a provider session would otherwise log them back in).
      .authorizationParams({ prompt: 'login' });
    const repository = await OAuth2ClientRepository.create([config]);
    const login = oauth2Login({
      repository,
      sessions,
      defaultTarget: '/me',
      ...(options.spentTransactions === undefined
        ? {}
        : { spentTransactions: options.spentTransactions }),
      ...(options.throttle === undefined ? {} : { throttle: options.throttle }),
      mapper: (user, { registrationId }) =>
        registrationId === OAUTH2_REGISTRATION_ID ? users.findByUsername(user.subject) : null,
    });
    return { login, issuer: provider.issuer, close: () => provider.close() };
  } catch (error) {
    await provider.close();
    throw error;
  }
}

function html(res: ServerResponse, body: string): void {
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    // Pages carry a CSRF token: never stored by a cache.
    'cache-control': 'no-store',
  });
  res.end(body);
}
