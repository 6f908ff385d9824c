import { deadlineExceeded } from '../../core/deadline.js';
import {
  StoreUnavailableError,
  TooManyRequestsError,
  UnavailableError,
} from '../../core/errors.js';
import type { SecurityRequest } from '../../core/request.js';
import type { BodyReader, SecurityRoutes } from '../../core/routes.js';
import type { SecurityResponse } from '../../core/security.js';
import { User } from '../../core/user.js';
import { withDeadline } from '../../lib/deadline.js';
import { JwtError } from '../errors.js';
import { RefreshStoreFullError } from '../refresh-store.js';
import { bodyTypeOf, parseBody } from './body.js';
import {
  readTokenEndpointsOptions,
  type TokenEndpointsOptions,
  type TokenEndpointsSettings,
} from './options.js';
import { INTERNAL_SERVER_ERROR } from '../../http/response.js';
import { tokenError, tokenSuccess, type TokenRefusal } from './responses.js';
import type { LoadUser } from '../token-service-options.js';
import type { LoginAttemptResult } from '../../throttle/login-throttle.js';

/** The login and refresh routes: {@link SecurityRoutes} with the two paths by name. */
export interface TokenEndpoints extends SecurityRoutes {
  /** The login route, e.g. `/auth/login`. */
  readonly loginPath: string;
  /** The refresh route, e.g. `/auth/refresh`. */
  readonly refreshPath: string;
  /**
   * Both paths, for the rule that lets anonymous requests reach them:
   * `.requestMatchers(endpoints.paths, Access.permitAll())`.
   */
  readonly paths: readonly string[];
}

/**
 * Ready-made JSON token endpoints (RFC 6749's resource-owner password and refresh
 * grants, answered as §5.1 token responses):
 *
 * - `POST loginPath` `{ "username", "password" }` checks the credentials with the
 *   authenticator and answers 200 `{ access_token, token_type: "Bearer", expires_in,
 *   refresh_token, refresh_expires_in }`, `Cache-Control: no-store`.
 * - `POST refreshPath` `{ "refresh_token" }` rotates the refresh token
 *   (`tokens.refresh`): a new pair with the user's current roles; a reused token
 *   revokes its family.
 *
 * `application/x-www-form-urlencoded` with `grant_type=password` / `refresh_token`
 * is read too (`formBodies`). Refusals are RFC 6749 §5.2 JSON errors with fixed
 * descriptions: 400 `invalid_grant` for bad credentials, a locked, disabled or
 * expired account, or a bad refresh token (all alike, so the endpoint tells nothing
 * about accounts); 400 `invalid_request` for a malformed body; 400
 * `unsupported_grant_type`; 405 (with `Allow: POST`), 413 (reading stops at
 * `maxBodyBytes`), 415; 503 with `Retry-After` when a store, the repository or the
 * deadline fails. The routes must be reachable anonymously: give `paths` a
 * `permitAll` rule.
 *
 * Guessing is slowed: a login refused by the authenticator's `LoginThrottle` (too
 * many failures for the username or from the address), or a refresh refused by the
 * `throttle` option's (too many bad refresh tokens from the address), answers 429
 * `{ "error": "slow_down" }` with `Retry-After`, before any password is hashed or
 * token looked up.
 *
 * Both paths answer every method (405 with `Allow: POST` to all but `POST`); any
 * other path is passed on (`handle` answers `undefined`). Mount them with
 * `securityRoutes(...)` of the adapter.
 *
 * @example
 * ```ts
 * import { JwtTokenService, tokenEndpoints } from 'portcullis/jwt';
 * import { securityRoutes, withSecurity } from 'portcullis/node';
 * const endpoints = tokenEndpoints({ authenticator, tokens, users: repository });
 * // rules: .requestMatchers(endpoints.paths, Access.permitAll())
 * const routes = securityRoutes(endpoints);
 * createServer(withSecurity(transform, (req, res) => routes(req, res, () => {
 *   // … the other routes
 * })));
 * ```
 */
export function tokenEndpoints(options: TokenEndpointsOptions): TokenEndpoints {
  const settings = readTokenEndpointsOptions(options);
  const { loginPath, refreshPath, maxBodyBytes, formBodies } = settings;
  const loadUser = failClosedUserLoader(settings.loadUser);
  const refuse = (refusal: TokenRefusal, headers?: Readonly<Record<string, string>>) =>
    tokenError(refusal, headers, settings.errorResponse);

  const handle = async (
    request: SecurityRequest,
    readBody: BodyReader,
  ): Promise<SecurityResponse | undefined> => {
    const path = request.path;
    const login = path === loginPath;
    if (!login && path !== refreshPath) return undefined;
    if (request.method !== 'POST') return refuse('method', { allow: 'POST' });
    const type = bodyTypeOf(request.header('content-type'), formBodies);
    if (type === undefined) return refuse('mediaType');
    if (Number(request.header('content-length') ?? 0) > maxBodyBytes) return refuse('tooLarge');
    const bytes = await readBody(maxBodyBytes);
    if (bytes === undefined) return refuse('tooLarge');
    const parsed = parseBody(bytes, type);
    if ('malformed' in parsed) {
      return refuse(parsed.malformed === 'repeated' ? 'repeated' : 'malformed');
    }
    const params = parsed.params;
    const refused = grantRefusal(
      params.get('grant_type'),
      login ? 'password' : 'refresh_token',
      type,
    );
    if (refused !== undefined) return refuse(refused);
    const operation = login ? 'token-login' : 'token-refresh';
    const work = login
      ? logIn(settings, request, params.get('username'), params.get('password'))
      : refresh(settings, loadUser, request, params.get('refresh_token'));
    try {
      return await withDeadline(work, settings.timeoutMs, () =>
        deadlineExceeded(operation, settings.timeoutMs, settings.events, request),
      );
    } catch (error) {
      if (error instanceof UnavailableError) {
        // A login throttle refused before anything was checked (429), or a store,
        // the repository or the deadline failed (503).
        const refusal = error instanceof TooManyRequestsError ? 'throttled' : 'unavailable';
        return refuse(refusal, { 'retry-after': String(error.retryAfter) });
      }
      // The default refresh store is full of live records: try later, never a 500.
      if (error instanceof RefreshStoreFullError) {
        return refuse('unavailable', { 'retry-after': '5' });
      }
      return INTERNAL_SERVER_ERROR; // signing failed, or a bug: never its details
    }
  };

  return Object.freeze({
    loginPath,
    refreshPath,
    paths: Object.freeze([loginPath, refreshPath]),
    handle,
  });
}

/**
 * The refusal of a `grant_type`: optional in JSON (when present it must be the
 * route's), required in a form (RFC 6749 §4.3.2, §6).
 */
function grantRefusal(
  grantType: unknown,
  expected: 'password' | 'refresh_token',
  type: 'json' | 'form',
): TokenRefusal | undefined {
  if (grantType === undefined) return type === 'form' ? 'missingGrantType' : undefined;
  return grantType === expected ? undefined : 'grantType';
}

async function logIn(
  settings: TokenEndpointsSettings,
  request: SecurityRequest,
  username: unknown,
  password: unknown,
): Promise<SecurityResponse> {
  if (typeof username !== 'string' || typeof password !== 'string') {
    return tokenError('credentials', {}, settings.errorResponse);
  }
  const outcome = await settings.authenticator.attemptCredentials(username, password, {
    request,
    authenticationMethod: 'password',
  });
  // A wrong password, an unknown user and a locked, disabled or expired account all
  // get this one answer (the authenticator's events tell them apart).
  if (outcome.kind !== 'authenticated')
    return tokenError('badCredentials', {}, settings.errorResponse);
  const { user } = outcome;
  const tokenUser = new User(user.username, user.getPassword(), user.roles, user.authorities);
  return tokenSuccess(await settings.tokens.generateTokenPair(tokenUser));
}

async function refresh(
  settings: TokenEndpointsSettings,
  loadUser: LoadUser,
  request: SecurityRequest,
  refreshToken: unknown,
): Promise<SecurityResponse> {
  if (typeof refreshToken !== 'string' || refreshToken === '')
    return tokenError('refreshToken', {}, settings.errorResponse);
  let result: LoginAttemptResult = 'unchecked';
  const check = async (): Promise<SecurityResponse> => {
    try {
      const pair = await settings.tokens.refresh(refreshToken, loadUser, { request });
      result = 'matched';
      return tokenSuccess(pair);
    } catch (error) {
      if (error instanceof JwtError && error.code !== 'ERR_JWT_SIGNING_FAILED') {
        // A real token of an account that may not log in now is no guess.
        result = error.code === 'ERR_JWT_ACCOUNT_INACTIVE' ? 'matched' : 'failed';
        return tokenError('badRefreshToken', {}, settings.errorResponse);
      }
      throw error;
    }
  };
  // Counted by address before the token is looked at; throws 429 when throttled.
  const throttle = settings.throttle;
  return throttle === undefined ? check() : throttle.guard(undefined, request, check, () => result);
}

/**
 * The refresh's user loader: a repository that fails is unavailable (503). An account
 * that may not log in now is refused by the token service itself
 * (`ERR_JWT_ACCOUNT_INACTIVE`, the family kept).
 */
function failClosedUserLoader(loadUser: LoadUser): LoadUser {
  return async (username) => {
    let user;
    try {
      user = await loadUser(username);
    } catch (error) {
      if (error instanceof UnavailableError) throw error;
      throw new StoreUnavailableError('user-repository', 'load-user', 5, { cause: error });
    }
    return user;
  };
}
