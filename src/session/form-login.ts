import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_DEADLINES, deadlineExceeded, requireDeadline } from '../core/deadline.js';
import { ConfigurationError, UnavailableError } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import type { User } from '../core/user.js';
import { fetchRequestView, nodeRequestView } from '../lib/request-views.js';
import { rejectUnknownOptions, requireInteger, requireName } from '../lib/validate.js';
import type { SessionAuthenticator } from './authenticator.js';
import { checkOrigin } from './csrf.js';
import { readForm } from './form.js';
import { safeRedirectTarget } from '../lib/redirect.js';
import { withDeadline } from '../lib/deadline.js';

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
  /** The login page, where failures return with `?error`. @defaultValue `'/login'` */
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

/** A form handler for both adapter styles. */
export interface FormHandler {
  /** For node `http`, Express, Connect: answers the request itself. */
  readonly node: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** For the Fetch API (Hono, Next.js route handlers, Bun, Deno). */
  readonly fetch: (request: Request) => Promise<Response>;
}

interface Outcome {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly setCookie?: string;
  readonly body: string;
}

const LOGIN_OPTIONS = [
  'sessions',
  'credentials',
  'loginUrl',
  'defaultTarget',
  'targetField',
  'usernameField',
  'passwordField',
  'maxBodyBytes',
  'timeoutMs',
];

/**
 * The `POST` handler of a login form (`username`, `password`, `_csrf`, and
 * optionally `continue`): checks the form's CSRF token against the pre-login
 * session and the request's origin, checks the credentials, then starts a fresh
 * session and redirects (303) to the saved target — only a same-origin path, never
 * `//evil.com` or `https://…` — or the default. Unknown user and wrong password get
 * the same redirect to `loginUrl?error` (the verifier checks a dummy hash for unknown
 * users, so the time is similar too). A bad CSRF token or a cross-site post is 403.
 *
 * @example
 * ```ts
 * const login = formLogin({ sessions, credentials: store });
 * if (req.method === 'POST' && path === '/login') return login.node(req, res);
 * ```
 */
export function formLogin(options: FormLoginOptions): FormHandler {
  const o = checkOptions('formLogin', options, LOGIN_OPTIONS);
  const { sessions, credentials } = o;
  if (
    typeof (credentials as Partial<CredentialsVerifier> | null)?.verifyCredentials !== 'function'
  ) {
    throw new ConfigurationError('credentials', 'must have verifyCredentials(username, password)');
  }
  const loginUrl = safePath('loginUrl', o.loginUrl ?? '/login');
  const defaultTarget = safePath('defaultTarget', o.defaultTarget ?? '/');
  const targetField = requireName('targetField', o.targetField ?? 'continue');
  const usernameField = requireName('usernameField', o.usernameField ?? 'username');
  const passwordField = requireName('passwordField', o.passwordField ?? 'password');
  const max = requireInteger('maxBodyBytes', o.maxBodyBytes ?? 16_384, 256, 1_048_576);
  const fieldName = sessions.settings.csrfFieldName;

  const handle = async (request: SecurityRequest, form: URLSearchParams): Promise<Outcome> => {
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
      // The password encoder passed its deadline: fail closed (503), not a 500.
      if (!(error instanceof UnavailableError)) throw error;
      return unavailableOutcome(error);
    }
    if (!user) {
      const keep = target === defaultTarget ? '' : `&${targetField}=${encodeURIComponent(target)}`;
      return redirect(`${loginUrl}${loginUrl.includes('?') ? '&' : '?'}error${keep}`);
    }
    return redirect(target, await sessions.logIn(user));
  };
  return makeHandler(max, sessions.events, timeoutOf(o.timeoutMs), 'form-login', handle);
}

/**
 * The `POST` handler of a logout form (`_csrf`): checks the token and origin, ends the
 * session (revoked, so a copied cookie no longer works), deletes the cookie and
 * redirects (303) to `target`.
 */
export function formLogout(options: FormLogoutOptions): FormHandler {
  const o = checkOptions('formLogout', options, [
    'sessions',
    'target',
    'maxBodyBytes',
    'timeoutMs',
  ]);
  const { sessions } = o;
  const target = safePath('target', o.target ?? '/login?logout');
  const max = requireInteger('maxBodyBytes', o.maxBodyBytes ?? 16_384, 256, 1_048_576);
  const fieldName = sessions.settings.csrfFieldName;
  return makeHandler(
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
): Promise<Outcome | undefined> {
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

/** 503 with `Retry-After`: a dependency passed its deadline or is down. */
function unavailableOutcome(error: UnavailableError): Outcome {
  const retryAfter = String(error.retryAfter);
  return {
    status: 503,
    headers: { ...TEXT, 'retry-after': retryAfter },
    body: 'Service Unavailable',
  };
}

function makeHandler(
  max: number,
  events: SecurityEvents,
  timeoutMs: number,
  operation: string,
  handle: (request: SecurityRequest, form: URLSearchParams) => Promise<Outcome>,
): FormHandler {
  const run = async (
    security: SecurityRequest,
    source: IncomingMessage | Request,
  ): Promise<Outcome> => {
    if (security.method !== 'POST')
      return { ...plain(405, 'Method Not Allowed'), headers: { ...TEXT, allow: 'POST' } };
    const read = await readForm(source, max);
    if ('status' in read)
      return plain(
        read.status,
        read.status === 413
          ? 'Payload Too Large'
          : read.status === 415
            ? 'Unsupported Media Type'
            : 'Bad Request',
      );
    try {
      return await withDeadline(handle(security, read.form), timeoutMs, () =>
        deadlineExceeded(operation, timeoutMs, events, security),
      );
    } catch (error) {
      if (error instanceof UnavailableError) return unavailableOutcome(error);
      throw error;
    }
  };
  return Object.freeze({
    node: async (req: IncomingMessage, res: ServerResponse) => {
      let outcome: Outcome;
      try {
        outcome = await run(nodeRequestView(req), req);
      } catch {
        // A client that went away mid-body, or a failing store: never an unhandled
        // rejection (which would end the process), never details.
        if (res.headersSent || req.socket.destroyed) res.destroy();
        else res.writeHead(500, TEXT).end('Internal Server Error');
        return;
      }
      if (outcome.setCookie !== undefined) res.appendHeader('set-cookie', outcome.setCookie);
      if (outcome.status === 413) res.setHeader('connection', 'close');
      res.writeHead(outcome.status, outcome.headers);
      res.end(outcome.body);
    },
    fetch: async (request: Request) => {
      const outcome = await run(fetchRequestView(request), request);
      const headers = new Headers(outcome.headers);
      if (outcome.setCookie !== undefined) headers.append('set-cookie', outcome.setCookie);
      return new Response(outcome.body === '' ? null : outcome.body, {
        status: outcome.status,
        headers,
      });
    },
  });
}

const TEXT = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };

function plain(status: number, body: string): Outcome {
  return { status, headers: TEXT, body };
}

function redirect(location: string, setCookie?: string): Outcome {
  return {
    status: 303,
    headers: { location, 'cache-control': 'no-store' },
    ...(setCookie === undefined ? {} : { setCookie }),
    body: '',
  };
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
