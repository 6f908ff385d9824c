import { isBrowserNavigation } from '../authorization/entry-points.js';
import { DEFAULT_DEADLINES, requireDeadline } from '../core/deadline.js';
import { ConfigurationError, TooManyRequestsError, UnavailableError } from '../core/errors.js';
import type { SecurityRequest } from '../core/request.js';
import type { SecurityRoutes } from '../core/routes.js';
import type { SecurityResponse } from '../core/security.js';
import type { User } from '../core/user.js';
import { safeRedirectTarget } from '../http/redirect.js';
import { rejectUnknownOptions, requireInteger, requireName } from '../core/validate.js';
import type { SessionAuthenticator } from './authenticator.js';
import { checkOrigin } from './csrf.js';
import { formPath, formRoutes, plain, redirect, retryLaterOutcome } from './form-handler.js';

/** Something that checks a username and password, like `MemoryAuthenticator`. */
export interface CredentialsVerifier {
  verifyCredentials(
    username: unknown,
    password: unknown,
    options?: { readonly request?: SecurityRequest; readonly authenticationMethod?: string },
  ): Promise<User | null>;
}

/** Options of {@link formLogin}. */
export interface FormLoginOptions {
  readonly sessions: SessionAuthenticator;
  /** Checks the username and password (the in-memory store, or any verifier). */
  readonly credentials: CredentialsVerifier;
  /**
   * The path the form posts to: the routes answer `POST` there, and pass any other
   * method on (so the application's own `GET` login page renders).
   * @defaultValue `'/login'`
   */
  readonly path?: string;
  /**
   * The login page, where failures return with `?error` and logins refused by a
   * login throttle (too many failures for the username or the address) with
   * `?error=throttled`. @defaultValue `'/login'`
   */
  readonly loginUrl?: string;
  /** Where a login without a (valid) saved target goes. @defaultValue `'/'` */
  readonly defaultTarget?: string;
  /** The form field carrying the saved target (a same-origin path). @defaultValue `'continue'` */
  readonly targetField?: string;
  /** @defaultValue `'username'` */
  readonly usernameField?: string;
  /** @defaultValue `'password'` */
  readonly passwordField?: string;
  /** The largest form body read, in bytes. @defaultValue `16384` */
  readonly maxBodyBytes?: number;
  /**
   * How long the work after the body is read may take (the CSRF check, the
   * credential check, the session store), in milliseconds (1 to 600,000). Past it
   * the answer is 503 with `Retry-After` and a `deadline-exceeded` event
   * (`operation: 'form-login'`); nobody is logged in.
   * @defaultValue `10_000`
   */
  readonly timeoutMs?: number;
}

/** Options of {@link formLogout}. */
export interface FormLogoutOptions {
  readonly sessions: SessionAuthenticator;
  /**
   * The path the logout form posts to: the routes answer `POST` there, and pass any
   * other method on. @defaultValue `'/logout'`
   */
  readonly path?: string;
  /** Where the browser goes after logout. @defaultValue `'/login?logout'` */
  readonly target?: string;
  /** @defaultValue `16384` */
  readonly maxBodyBytes?: number;
  /**
   * How long the work after the body is read may take (the CSRF check, the
   * credential check, the session store), in milliseconds (1 to 600,000). Past it
   * the answer is 503 with `Retry-After` and a `deadline-exceeded` event
   * (`operation: 'form-logout'`); nobody is logged out.
   * @defaultValue `10_000`
   */
  readonly timeoutMs?: number;
}

const LOGIN_OPTIONS = [
  'sessions',
  'credentials',
  'path',
  'loginUrl',
  'defaultTarget',
  'targetField',
  'usernameField',
  'passwordField',
  'maxBodyBytes',
  'timeoutMs',
];

/**
 * The route of a login form: `POST path` (`username`, `password`, `_csrf`, and
 * optionally `continue`) checks the form's CSRF token against the pre-login
 * session and the request's origin, checks the credentials, then starts a fresh
 * session and redirects (303) to the saved target — only a same-origin path, never
 * `//evil.com` or `https://…` — or the default. Unknown user and wrong password get
 * the same redirect to `loginUrl?error` (the verifier checks a dummy hash for unknown
 * users, so the time is similar too). A bad CSRF token or a cross-site post is 403.
 *
 * When the credentials' login throttle refuses the attempt (a `TooManyRequestsError`:
 * too many failures for the username or from the address; nothing was checked), a
 * browser (Accept lists `text/html`) is sent to `loginUrl?error=throttled` and any
 * other client gets 429 with `Retry-After`; a `throttled` event is published by the
 * throttle. Never 503 for it.
 *
 * Any other method on `path` (the application's own `GET /login` page) and any other
 * path are passed on: `handle` answers `undefined`. Mount the routes with
 * `securityRoutes(...)` of the adapter, and let anonymous requests reach them.
 *
 * @example
 * ```ts
 * const login = formLogin({ sessions, credentials: store });
 * // rules: .requestMatchers(login.paths, Access.permitAll())
 * app.use(securityRoutes(login, formLogout({ sessions }))); // portcullis/node, Express
 * ```
 */
export function formLogin(options: FormLoginOptions): SecurityRoutes {
  const o = checkOptions('formLogin', options, LOGIN_OPTIONS);
  const { sessions, credentials } = o;
  if (
    typeof (credentials as Partial<CredentialsVerifier> | null)?.verifyCredentials !== 'function'
  ) {
    throw new ConfigurationError('credentials', 'must have verifyCredentials(username, password)');
  }
  const path = formPath('path', o.path ?? '/login');
  const loginUrl = safePath('loginUrl', o.loginUrl ?? '/login');
  const defaultTarget = safePath('defaultTarget', o.defaultTarget ?? '/');
  const targetField = requireName('targetField', o.targetField ?? 'continue');
  const usernameField = requireName('usernameField', o.usernameField ?? 'username');
  const passwordField = requireName('passwordField', o.passwordField ?? 'password');
  const max = requireInteger('maxBodyBytes', o.maxBodyBytes ?? 16_384, 256, 1_048_576);
  const fieldName = sessions.settings.csrfFieldName;
  const failed = (target: string, marker: string): SecurityResponse => {
    const keep = target === defaultTarget ? '' : `&${targetField}=${encodeURIComponent(target)}`;
    return redirect(`${loginUrl}${loginUrl.includes('?') ? '&' : '?'}error${marker}${keep}`);
  };

  const handle = async (
    request: SecurityRequest,
    form: URLSearchParams,
  ): Promise<SecurityResponse> => {
    const refused = await csrfRefusal(sessions, request, form.get(fieldName));
    if (refused) return refused;
    const target = safeRedirectTarget(form.get(targetField), defaultTarget);
    let user: User | null;
    try {
      user = await credentials.verifyCredentials(form.get(usernameField), form.get(passwordField), {
        request,
        authenticationMethod: 'form',
      });
    } catch (error) {
      if (error instanceof TooManyRequestsError && isBrowserNavigation(request)) {
        return failed(target, '=throttled');
      }
      // A throttle refused (429), or the password encoder passed its deadline (503):
      // fail closed, not a 500.
      if (!(error instanceof UnavailableError)) throw error;
      return retryLaterOutcome(error);
    }
    if (!user) return failed(target, '');
    return redirect(target, await sessions.logIn(user));
  };
  return formRoutes(path, max, sessions.events, timeoutOf(o.timeoutMs), 'form-login', handle);
}

/**
 * The route of a logout form: `POST path` (`_csrf`) checks the token and origin, ends
 * the session (revoked, so a copied cookie no longer works), deletes the cookie and
 * redirects (303) to `target`. Any other method or path is passed on (`undefined`).
 *
 * @example
 * ```ts
 * const logout = formLogout({ sessions }); // POST /logout
 * ```
 */
export function formLogout(options: FormLogoutOptions): SecurityRoutes {
  const o = checkOptions('formLogout', options, [
    'sessions',
    'path',
    'target',
    'maxBodyBytes',
    'timeoutMs',
  ]);
  const { sessions } = o;
  const path = formPath('path', o.path ?? '/logout');
  const target = safePath('target', o.target ?? '/login?logout');
  const max = requireInteger('maxBodyBytes', o.maxBodyBytes ?? 16_384, 256, 1_048_576);
  const fieldName = sessions.settings.csrfFieldName;
  return formRoutes(
    path,
    max,
    sessions.events,
    timeoutOf(o.timeoutMs),
    'form-logout',
    async (request, form) => {
      const refused = await csrfRefusal(sessions, request, form.get(fieldName));
      if (refused) return refused;
      return redirect(target, await sessions.logOut(request));
    },
  );
}

async function csrfRefusal(
  sessions: SessionAuthenticator,
  request: SecurityRequest,
  token: string | null,
): Promise<SecurityResponse | undefined> {
  if (!sessions.settings.csrf) return undefined;
  const origin = checkOrigin(sessions.settings, request);
  const bad =
    (origin !== undefined && origin !== null) || !(await sessions.verifyCsrfToken(request, token));
  return bad ? plain(403, 'Forbidden') : undefined;
}

function timeoutOf(value: unknown): number {
  return value === undefined
    ? DEFAULT_DEADLINES.authenticationMs
    : requireDeadline('timeoutMs', value);
}

function safePath(option: string, value: unknown): string {
  const safe = safeRedirectTarget(value, '');
  if (safe === '')
    throw new ConfigurationError(option, 'must be a same-origin path such as /login');
  return safe;
}

function checkOptions<T extends object>(
  owner: string,
  options: T,
  known: readonly string[],
): T & { sessions: SessionAuthenticator } {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  rejectUnknownOptions(owner, options, known);
  const sessions = (options as { sessions?: unknown }).sessions;
  if (typeof (sessions as Partial<SessionAuthenticator> | null)?.logIn !== 'function') {
    throw new ConfigurationError('sessions', 'must be a SessionAuthenticator');
  }
  return options as T & { sessions: SessionAuthenticator };
}
