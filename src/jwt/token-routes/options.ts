import { DEFAULT_DEADLINES, requireDeadline } from '../../core/deadline.js';
import { ConfigurationError } from '../../core/errors.js';
import { securityEvents, type SecurityEvents } from '../../core/events.js';
import type { CredentialsAuthenticator } from '../../core/outcome.js';
import type { UserRepository } from '../../users/repository.js';
import { safeRedirectTarget } from '../../http/redirect.js';
import { throttleOption, type LoginThrottle } from '../../throttle/login-throttle.js';
import { rejectUnknownOptions, requireInteger } from '../../core/validate.js';
import type { JwtTokenService } from '../token-service.js';
import type { TokenErrorFormatter } from './responses.js';
import type { LoadUser } from '../token-service-options.js';

/** Options of {@link tokenEndpoints}. */
export interface TokenEndpointsOptions {
  /**
   * Checks the username and password of a login, with every protection it has (dummy
   * hash for unknown users, account state, bounded hashing, events): the
   * repository-backed authenticator or the in-memory store.
   */
  readonly authenticator: CredentialsAuthenticator;
  /** Issues the pairs and rotates the refresh tokens. */
  readonly tokens: Pick<JwtTokenService, 'generateTokenPair' | 'refresh'>;
  /**
   * Where a refresh finds the token's user again (current roles and authorities): a
   * {@link UserRepository} (`findByUsername`) or `{ loadUser(username) }`. A user that
   * is gone ends the token's family.
   */
  readonly users: UserRepository | { readonly loadUser: LoadUser };
  /** The login route. @defaultValue `'/auth/login'` */
  readonly loginPath?: string;
  /** The refresh route. @defaultValue `'/auth/refresh'` */
  readonly refreshPath?: string;
  /** The largest body read, in bytes (256 to 1,048,576). @defaultValue `8192` */
  readonly maxBodyBytes?: number;
  /**
   * How long the work after the body is read may take (the credential check and the
   * signing, or the whole refresh), in milliseconds (1 to 600,000). Past it the answer
   * is 503 with `Retry-After` and a `deadline-exceeded` event (`operation:
   * 'token-login'` / `'token-refresh'`); no token is issued.
   * @defaultValue `10_000`
   */
  readonly timeoutMs?: number;
  /**
   * Accept `application/x-www-form-urlencoded` bodies with `grant_type=password` /
   * `grant_type=refresh_token` (RFC 6749 §4.3.2, §6) besides JSON.
   * @defaultValue `true`
   */
  readonly formBodies?: boolean;
  /** Where the `deadline-exceeded` events go. @defaultValue `securityEvents` */
  readonly events?: SecurityEvents;
  /**
   * Answers refusals in the application's own format (e.g. 401 for bad credentials):
   * it gets the status, the RFC 6749 error code and the fixed description, never
   * what the client sent; `undefined` keeps the default answer. `Cache-Control:
   * no-store`, `Allow` and `Retry-After` are kept.
   * @defaultValue the RFC 6749 §5.2 JSON errors
   */
  readonly errorResponse?: TokenErrorFormatter;
  /**
   * Slows a client guessing refresh tokens: every refresh is counted against the
   * client's address (never a username) before the token is looked at, a bad token
   * stays counted, a good one is taken back, one not checked (a store down) too.
   * Past the throttle's `address` limit, refreshes from that address get 429
   * `slow_down` with `Retry-After` until the delay ends. Pass the authenticator's
   * throttle to share its counters (and its `trustedProxies`) with the logins; `false`
   * for none. Logins are throttled by the authenticator's own throttle.
   * @defaultValue a new `LoginThrottle` (100 failures per address in 15 minutes, this process only)
   */
  readonly throttle?: LoginThrottle | false;
}

/** The validated options with their defaults. @internal */
export interface TokenEndpointsSettings {
  readonly authenticator: CredentialsAuthenticator;
  readonly tokens: Pick<JwtTokenService, 'generateTokenPair' | 'refresh'>;
  readonly loadUser: LoadUser;
  readonly loginPath: string;
  readonly refreshPath: string;
  readonly maxBodyBytes: number;
  readonly timeoutMs: number;
  readonly formBodies: boolean;
  readonly events: SecurityEvents;
  readonly errorResponse: TokenErrorFormatter | undefined;
  /** Counts refreshes by address; `undefined` when off. */
  readonly throttle: LoginThrottle | undefined;
}

const NAMES = [
  'authenticator',
  'tokens',
  'users',
  'loginPath',
  'refreshPath',
  'maxBodyBytes',
  'timeoutMs',
  'formBodies',
  'events',
  'errorResponse',
  'throttle',
];

/** Validates the options (never mutating them) and fills in the defaults. @internal */
export function readTokenEndpointsOptions(options: TokenEndpointsOptions): TokenEndpointsSettings {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  rejectUnknownOptions('tokenEndpoints', options, NAMES);
  const authenticator = options.authenticator as Partial<CredentialsAuthenticator> | null;
  if (typeof authenticator?.attemptCredentials !== 'function') {
    throw new ConfigurationError(
      'authenticator',
      'must be a CredentialsAuthenticator (attemptCredentials(username, password))',
    );
  }
  const tokens = options.tokens as Partial<JwtTokenService> | null;
  if (typeof tokens?.generateTokenPair !== 'function' || typeof tokens.refresh !== 'function') {
    throw new ConfigurationError('tokens', 'must be a JwtTokenService');
  }
  const loginPath = routePath('loginPath', options.loginPath ?? '/auth/login');
  const refreshPath = routePath('refreshPath', options.refreshPath ?? '/auth/refresh');
  if (loginPath === refreshPath) {
    throw new ConfigurationError('refreshPath', 'must differ from loginPath');
  }
  const formBodies = options.formBodies ?? true;
  if (typeof formBodies !== 'boolean') {
    throw new ConfigurationError('formBodies', 'must be a boolean');
  }
  const events = options.events ?? securityEvents;
  if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  const errorResponse = options.errorResponse;
  if (errorResponse !== undefined && typeof errorResponse !== 'function') {
    throw new ConfigurationError('errorResponse', 'must be a function of the refusal');
  }
  return {
    authenticator: authenticator as CredentialsAuthenticator,
    tokens: tokens as JwtTokenService,
    loadUser: loaderOf(options.users),
    loginPath,
    refreshPath,
    maxBodyBytes: requireInteger('maxBodyBytes', options.maxBodyBytes ?? 8192, 256, 1_048_576),
    timeoutMs:
      options.timeoutMs === undefined
        ? DEFAULT_DEADLINES.authenticationMs
        : requireDeadline('timeoutMs', options.timeoutMs),
    formBodies,
    events,
    errorResponse,
    throttle: throttleOption(options.throttle, events),
  };
}

function loaderOf(users: unknown): LoadUser {
  if (typeof users === 'object' && users !== null) {
    const candidate = users as Partial<UserRepository> & { loadUser?: unknown };
    if (typeof candidate.findByUsername === 'function') {
      const repository = candidate as UserRepository;
      return (username) => repository.findByUsername(username);
    }
    if (typeof candidate.loadUser === 'function') {
      const loadUser = candidate.loadUser as LoadUser;
      return (username) => loadUser(username);
    }
  }
  if (typeof users === 'function') {
    throw new ConfigurationError('users', 'pass { loadUser } rather than a bare function');
  }
  throw new ConfigurationError(
    'users',
    'must be a UserRepository (findByUsername) or { loadUser(username) }',
  );
}

/**
 * An absolute path without query, dot segments, doubled slashes, nor a character a
 * path pattern or a Fastify route reads (`*`, `{`, `}`, `:`), e.g. `/auth/login`.
 */
function routePath(option: string, value: unknown): string {
  const safe = safeRedirectTarget(value, '');
  if (safe === '' || safe !== value || /[?#%*{}:]|\/\/|\/\.\.?(?:\/|$)/u.test(safe)) {
    throw new ConfigurationError(option, 'must be a plain absolute path such as /auth/login');
  }
  return safe;
}
