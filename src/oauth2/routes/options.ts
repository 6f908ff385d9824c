import { DEFAULT_DEADLINES, requireDeadline } from '../../core/deadline.js';
import { ConfigurationError } from '../../core/errors.js';
import { securityEvents, type SecurityEvents } from '../../core/events.js';
import type { SecurityRequest } from '../../core/request.js';
import { User } from '../../core/user.js';
import { rejectUnknownOptions, requireInteger, requireName } from '../../core/validate.js';
import { DEFAULT_STORE_TIMEOUT_MS, type StoreCallSite } from '../../stores/call.js';
import type { SpentIdStore } from '../../stores/types.js';
import type { LoginThrottle } from '../../throttle/login-throttle.js';
import { spentStore } from './spent.js';
import { throttleOption } from '../../throttle/login-throttle.js';
import type { OAuth2Error } from '../errors.js';
import { safeRedirectTarget as sameOriginTarget } from '../../http/redirect.js';
import {
  derivePasswords,
  REGISTRATION_ID,
  type TransactionCookieSettings,
} from '../transaction.js';
import type { OAuth2ClientLike, OAuth2Tokens, OAuth2User } from '../types.js';

/** Where the routes find a client by registration id, e.g. an `OAuth2ClientRepository`. */
export interface OAuth2ClientSource {
  /**
   * The client registered under `registrationId`; `undefined` (or an `OAuth2Error`
   * with code `ERR_OAUTH2_UNKNOWN_REGISTRATION`) when there is none.
   */
  get(registrationId: string): OAuth2ClientLike | undefined | Promise<OAuth2ClientLike | undefined>;
}

/** What the routes need of the sessions: a `SessionAuthenticator` fits. */
export interface OAuth2LoginSessions {
  /** Starts a fresh session for the user and returns its `Set-Cookie` value. */
  logIn(user: User): Promise<string>;
}

/** What the mapper is told besides the provider's user. */
export interface OAuth2MapperContext {
  /** The registration id the login went through (e.g. `google`). */
  readonly registrationId: string;
  /** The provider's tokens: store `refreshToken` here if the application calls the provider later. */
  readonly tokens: OAuth2Tokens;
  /** The callback request. */
  readonly request: SecurityRequest;
}

/**
 * Turns the identity a provider vouched for into the application's user, or `null`
 * to refuse the login. Key accounts on `provider` + `subject`; never on an email the
 * provider did not verify (`emailVerified: false`), which anyone can claim.
 */
export type OAuth2UserMapper = (
  user: OAuth2User,
  context: OAuth2MapperContext,
) => User | null | Promise<User | null>;

/** Options of {@link oauth2Login}. */
export interface OAuth2LoginOptions {
  /** The clients by registration id (an `OAuth2ClientRepository`, or anything with `get(id)`). Give this or `clients`. */
  readonly repository?: OAuth2ClientSource;
  /** The clients, when there is no repository. Give this or `repository`. */
  readonly clients?: readonly OAuth2ClientLike[];
  /** Logs the user in (a `SessionAuthenticator`). */
  readonly sessions: OAuth2LoginSessions;
  /** @defaultValue username `` `${provider}:${subject}` ``, role `USER` */
  readonly mapper?: OAuth2UserMapper;
  /**
   * How long the mapper may take, in milliseconds (1 to 600,000). Past it the callback
   * answers 503 with `Retry-After` (nobody is logged in) and a `deadline-exceeded`
   * event (operation `oauth2-mapper`) is published.
   * @defaultValue `5_000`
   */
  readonly mapperTimeoutMs?: number;
  /**
   * Iron passwords sealing the transaction cookie (each ≥ 32 characters; a separate
   * key is derived from each). @defaultValue the `SessionAuthenticator`'s passwords
   */
  readonly passwords?: string | Readonly<Record<string | number, string>>;
  /** The login page; failures land on `loginUrl?error=oauth2`. @defaultValue `'/login'` */
  readonly loginUrl?: string;
  /** Where a login without a (valid) saved target goes. @defaultValue `'/'` */
  readonly defaultTarget?: string;
  /** The query parameter of the authorization route carrying the return target. @defaultValue `'continue'` */
  readonly targetParameter?: string;
  /** Prefix of `GET {authorizationPath}{registrationId}`. @defaultValue `'/oauth2/authorization/'` */
  readonly authorizationPath?: string;
  /** Prefix of `GET {callbackPath}{registrationId}` (the redirect URI's path). @defaultValue `'/login/oauth2/code/'` */
  readonly callbackPath?: string;
  /** How long a login may take at the provider, in seconds (30 to 3600). @defaultValue `600` */
  readonly transactionTtlSeconds?: number;
  /** How many logins one browser may have pending at once (tabs, providers), 1 to 5. @defaultValue `3` */
  readonly maxPendingLogins?: number;
  /**
   * Where the ids of spent login transactions are kept, so that a copy of a
   * transaction cookie presented again after its callback is refused. Share one store
   * between every instance (`RedisSpentIdStore`, `portcullis/redis`): with a store
   * per process, a copy replayed on another instance is stopped only by the
   * provider's single-use code and PKCE. A store that throws, rejects or passes
   * `storeTimeoutMs` fails the callback closed (503, nobody logged in).
   * @defaultValue a new `MemorySpentIdStore` of `maxSpentTransactions` ids (this process only)
   */
  readonly spentTransactions?: SpentIdStore;
  /**
   * How many live spent ids the default store keeps (100 to 10,000,000); when full it
   * refuses callbacks (503) rather than forget one. Not with `spentTransactions`.
   * @defaultValue `100_000`
   */
  readonly maxSpentTransactions?: number;
  /**
   * How long an asynchronous answer of `spentTransactions` may take, in milliseconds
   * (1 to 600,000). Past it the callback fails closed (503).
   * @defaultValue `2_000`
   */
  readonly storeTimeoutMs?: number;
  /**
   * Plain-HTTP development only: the transaction cookie without `Secure` and without
   * the `__Host-` prefix. @defaultValue follows the sessions (`true` when they are insecure), else `false`
   */
  readonly dangerouslyAllowInsecureCookie?: boolean;
  /** Called with every failure (for logs: `error.code`, `error.providerError`); errors it throws are ignored. */
  readonly onFailure?: (error: OAuth2Error, request: SecurityRequest) => void;
  /** Where events go. @defaultValue `securityEvents` */
  readonly events?: SecurityEvents;
  /** The clock in epoch milliseconds (tests). @defaultValue `Date.now` */
  readonly clock?: () => number;
  /**
   * Slows a client replaying or forging callbacks: every callback is counted against
   * the client's address (never a username) before its cookie is opened; a failed
   * one (no or a bad transaction, a bad state, a replay, a refused code exchange, a
   * user the mapper refused) stays counted, a login takes it back. Past the
   * throttle's `address` limit, callbacks from that address are refused before
   * anything is checked: a browser goes to `loginUrl?error=throttled`, another client
   * gets 429 with `Retry-After` (and a `throttled` event). Pass the authenticator's
   * throttle to share its counters and `trustedProxies`; `false` for none.
   * @defaultValue a new `LoginThrottle` (100 failures per address in 15 minutes, this process only)
   */
  readonly throttle?: LoginThrottle | false;
}

/** The resolved options. @internal */
export interface RoutesSettings {
  readonly clients: OAuth2ClientSource;
  readonly sessions: OAuth2LoginSessions;
  readonly mapper: OAuth2UserMapper;
  readonly mapperTimeoutMs: number;
  readonly loginUrl: string;
  readonly defaultTarget: string;
  readonly targetParameter: string;
  readonly authorizationPath: string;
  readonly callbackPath: string;
  readonly cookie: TransactionCookieSettings;
  /** The spent-transaction store. */
  readonly spent: SpentIdStore;
  /** Its calls' deadline and names (errors, events). */
  readonly spentSite: StoreCallSite;
  readonly onFailure: OAuth2LoginOptions['onFailure'];
  readonly events: SecurityEvents;
  /** Counts callbacks by address; `undefined` when off. */
  readonly throttle: LoginThrottle | undefined;
}

const OPTIONS = [
  'repository',
  'clients',
  'sessions',
  'mapper',
  'mapperTimeoutMs',
  'passwords',
  'loginUrl',
  'defaultTarget',
  'targetParameter',
  'authorizationPath',
  'callbackPath',
  'transactionTtlSeconds',
  'maxPendingLogins',
  'spentTransactions',
  'maxSpentTransactions',
  'storeTimeoutMs',
  'dangerouslyAllowInsecureCookie',
  'onFailure',
  'events',
  'clock',
  'throttle',
];

/** The default mapper: username `` `${provider}:${subject}` ``, role `USER`, nothing from the email. */
export const defaultOAuth2UserMapper: OAuth2UserMapper = (user) =>
  new User(`${user.provider}:${user.subject}`, '', ['USER']);

/** Validates the options of `oauth2Login` once. @internal */
export function resolveRoutes(options: OAuth2LoginOptions): RoutesSettings {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  rejectUnknownOptions('oauth2Login', options, OPTIONS);
  const { sessions, mapper = defaultOAuth2UserMapper, onFailure, clock = Date.now } = options;
  if (typeof (sessions as Partial<OAuth2LoginSessions> | null)?.logIn !== 'function') {
    throw new ConfigurationError('sessions', 'must be a SessionAuthenticator');
  }
  if (typeof mapper !== 'function') throw new ConfigurationError('mapper', 'must be a function');
  if (onFailure !== undefined && typeof onFailure !== 'function') {
    throw new ConfigurationError('onFailure', 'must be a function');
  }
  if (typeof clock !== 'function') throw new ConfigurationError('clock', 'must be a function');
  const events = options.events ?? securityEvents;
  if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  const session = sessionSettings(sessions);
  const passwords = options.passwords ?? session?.passwords;
  if (passwords === undefined) {
    throw new ConfigurationError(
      'passwords',
      'is required when sessions has no passwords to share',
    );
  }
  const insecure = options.dangerouslyAllowInsecureCookie ?? session?.secure === false;
  if (typeof insecure !== 'boolean') {
    throw new ConfigurationError('dangerouslyAllowInsecureCookie', 'must be a boolean');
  }
  return {
    clients: clientSource(options),
    sessions,
    mapper,
    mapperTimeoutMs: requireDeadline(
      'mapperTimeoutMs',
      options.mapperTimeoutMs ?? DEFAULT_DEADLINES.loadUserMs,
    ),
    loginUrl: samePath('loginUrl', options.loginUrl ?? '/login'),
    defaultTarget: samePath('defaultTarget', options.defaultTarget ?? '/'),
    targetParameter: requireName('targetParameter', options.targetParameter ?? 'continue'),
    authorizationPath: prefix(
      'authorizationPath',
      options.authorizationPath,
      '/oauth2/authorization/',
    ),
    callbackPath: prefix('callbackPath', options.callbackPath, '/login/oauth2/code/'),
    cookie: {
      passwords: derivePasswords('passwords', passwords),
      secure: !insecure,
      ttlSeconds: requireInteger(
        'transactionTtlSeconds',
        options.transactionTtlSeconds ?? 600,
        30,
        3600,
      ),
      maxPending: requireInteger('maxPendingLogins', options.maxPendingLogins ?? 3, 1, 5),
      clock,
    },
    spent: spentStore(options, clock),
    spentSite: {
      store: 'spent-transaction',
      operation: 'oauth2-transaction-spend',
      timeoutMs: requireDeadline(
        'storeTimeoutMs',
        options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS,
      ),
      events,
    },
    onFailure,
    events,
    throttle: throttleOption(options.throttle, events),
  };
}

/** The passwords and `secure` flag of a `SessionAuthenticator`, read structurally. */
function sessionSettings(
  sessions: OAuth2LoginSessions,
): { readonly passwords: unknown; readonly secure: unknown } | undefined {
  const settings = (sessions as { readonly settings?: unknown }).settings;
  if (typeof settings !== 'object' || settings === null) return undefined;
  const { passwords, secure } = settings as { passwords?: unknown; secure?: unknown };
  return { passwords, secure };
}

function clientSource(options: OAuth2LoginOptions): OAuth2ClientSource {
  const { repository, clients } = options;
  if ((repository === undefined) === (clients === undefined)) {
    throw new ConfigurationError('repository', 'give either repository or clients (one of them)');
  }
  if (repository !== undefined) {
    if (typeof (repository as Partial<OAuth2ClientSource> | null)?.get !== 'function') {
      throw new ConfigurationError('repository', 'must have get(registrationId)');
    }
    return repository;
  }
  if (!Array.isArray(clients) || clients.length === 0) {
    throw new ConfigurationError('clients', 'must be a non-empty array of OAuth2 clients');
  }
  const byId = new Map<string, OAuth2ClientLike>();
  for (const client of clients as readonly OAuth2ClientLike[]) {
    const id = (client as Partial<OAuth2ClientLike> | null)?.registrationId;
    if (typeof id !== 'string' || typeof client.handleCallback !== 'function') {
      throw new ConfigurationError('clients', 'must be OAuth2 clients');
    }
    if (!REGISTRATION_ID.test(id)) {
      throw new ConfigurationError(
        'clients',
        'registration ids are letters, digits, ".", "_" and "-"',
      );
    }
    if (byId.has(id))
      throw new ConfigurationError('clients', `registration id "${id}" is repeated`);
    byId.set(id, client);
  }
  return { get: (id) => byId.get(id) };
}

function samePath(option: string, value: unknown): string {
  const safe = sameOriginTarget(value, '');
  if (safe === '')
    throw new ConfigurationError(option, 'must be a same-origin path such as /login');
  return safe;
}

function prefix(option: string, value: unknown, fallback: string): string {
  const path = value ?? fallback;
  if (
    typeof path !== 'string' ||
    !/^\/(?:[A-Za-z0-9._~-]+\/)+$/u.test(path) ||
    /\/\.{1,2}\//u.test(path)
  ) {
    throw new ConfigurationError(
      option,
      'must be a path ending with "/", such as /oauth2/authorization/',
    );
  }
  return path;
}
