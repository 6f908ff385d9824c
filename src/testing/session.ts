import type { AuthenticatedUser } from '../core/authenticated-user.js';
import type { User } from '../core/user.js';
import type { SessionAuthenticator } from '../session/authenticator.js';
import type { SessionConfig, SessionConfigOptions } from '../session/config.js';
import { refuseInProduction } from './production.js';

/** What {@link sessionFor} returns. */
export interface TestSession {
  /** The `Cookie` header value: `<name>=<sealed session>`. */
  readonly cookie: string;
  /** The session's CSRF token, for unsafe requests (POST, PUT, PATCH, DELETE). */
  readonly csrfToken: string;
  /** Both as request headers: `cookie` and the CSRF header (`x-csrf-token` by default). */
  readonly headers: Readonly<Record<string, string>>;
}

type Sessions = SessionAuthenticator | SessionConfig | SessionConfigOptions;

async function authenticatorOf(sessions: Sessions): Promise<SessionAuthenticator> {
  const { SessionAuthenticator: Authenticator } = await import('../session/authenticator.js');
  return sessions instanceof Authenticator ? sessions : new Authenticator(sessions);
}

/**
 * The `Cookie` header value of a fresh session of `user`, sealed with iron-session by
 * the `SessionAuthenticator`'s own `logIn` (what a successful form or OAuth2 login
 * sets). Give the application's `SessionAuthenticator`, or its `SessionConfig` (the
 * same passwords seal and open it).
 *
 * `iron-session` is loaded here, so importing the kit needs no peer.
 *
 * @example
 * ```ts
 * const cookie = await sessionCookieFor(mockUser('ann'), sessions);
 * const response = await app(new Request('https://app.test/me', { headers: { cookie } }));
 * ```
 */
export async function sessionCookieFor(
  user: AuthenticatedUser | User,
  sessions: Sessions,
): Promise<string> {
  refuseInProduction('sessionCookieFor');
  return cookieOf(await (await authenticatorOf(sessions)).logIn(user));
}

/**
 * A fresh session of `user` with its CSRF token, for unsafe requests through the
 * CSRF checks: `headers` holds the `Cookie` and the CSRF header.
 *
 * @example
 * ```ts
 * const { headers } = await sessionFor(mockUser('ann'), sessions);
 * await app(new Request('https://app.test/posts', { method: 'POST', headers, body }));
 * ```
 */
export async function sessionFor(
  user: AuthenticatedUser | User,
  sessions: Sessions,
): Promise<TestSession> {
  refuseInProduction('sessionFor');
  const authenticator = await authenticatorOf(sessions);
  const cookie = cookieOf(await authenticator.logIn(user));
  const { token } = await authenticator.csrfToken(
    new Request('https://localhost/', { headers: { cookie } }),
  );
  return Object.freeze({
    cookie,
    csrfToken: token,
    headers: Object.freeze({ cookie, [authenticator.settings.csrfHeaderName]: token }),
  });
}

/** `name=value` of a `Set-Cookie` value (its attributes dropped). */
function cookieOf(setCookie: string): string {
  const end = setCookie.indexOf(';');
  return end === -1 ? setCookie : setCookie.slice(0, end);
}
