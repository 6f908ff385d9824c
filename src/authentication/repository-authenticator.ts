import { AuthenticatedUser } from '../core/authenticated-user.js';
import { publishDeadlineExceeded } from '../core/deadline.js';
import { ConfigurationError, DeadlineExceededError } from '../core/errors.js';
import { securityEvents } from '../core/events.js';
import {
  Outcome,
  type AttemptCredentialsOptions,
  type AuthenticationOutcome,
  type CredentialsAuthenticator,
} from '../core/outcome.js';
import type { SecurityRequest } from '../core/request.js';
import type { Authenticator } from '../core/security.js';
import type { User } from '../core/user.js';
import { isPromiseLike } from '../lib/promise.js';
import { Semaphore } from '../lib/semaphore.js';
import { TtlCache } from '../lib/ttl-cache.js';
import type { PasswordEncoder } from '../password/index.js';
import { announceUserChange, MemoryUserChangeNotifier } from '../stores/memory-user-changes.js';
import type { MaybePromise, UserChangeNotifier } from '../stores/types.js';
import { throttleOption, type LoginThrottle } from '../throttle/login-throttle.js';
import type { UserRepository } from '../users/repository.js';
import {
  requireEncoder,
  resolveAuthenticatorOptions,
  type RepositoryAuthenticatorOptions,
  type ResolvedAuthenticatorOptions,
} from './authenticator-options.js';
import { basicInput, formInput, type CredentialInput } from './credential-input.js';
import {
  CredentialVerifier,
  type CachedCredential,
  type VerificationOutcome,
} from './credential-verifier.js';
import { publishAuthentication } from './publish.js';
import { RepositoryCalls, requireRepository } from './repository-calls.js';

/** Options of `verifyCredentials` (the same as {@link AttemptCredentialsOptions}). */
export type VerifyCredentialsOptions = AttemptCredentialsOptions;

/** A checked credential: the user, or the failure with the username it named. */
type Verdict =
  | { readonly ok: true; readonly user: User }
  | { readonly ok: false; readonly outcome: AuthenticationOutcome };

/**
 * HTTP Basic (RFC 7617) and username/password logins against a {@link UserRepository}
 * (Spring's `DaoAuthenticationProvider`), with every protection of the in-memory
 * store:
 *
 * - An unknown username costs what a wrong password costs: one repository lookup and
 *   one `matches`, against a dummy hash made once by the configured encoder.
 * - Verifications run at most `maxConcurrentVerifications` at once; beyond
 *   `maxQueuedVerifications` waiting, an attempt fails with `too-many-attempts`.
 *   Identical concurrent attempts share one check.
 * - Verified credentials are cached for `cache.ttlMs` at most: a hit answers
 *   synchronously without asking the repository. A user's entries are dropped on
 *   every instance when a change of the user is announced through `userChanges`
 *   (`userChanged(username)`, a password upgrade).
 * - The account state (disabled, locked, expired, credentials expired) is looked at
 *   only after the password matched, each refused with its own reason; a wrong
 *   password is `bad-credentials` whatever the account's state, so nothing tells
 *   which usernames exist or how they stand.
 * - When `passwordEncoder.upgradeEncoding(stored)` is true after a successful login,
 *   the password is re-encoded and stored once with `users.updatePassword` (a
 *   compare-and-set), and the change announced.
 * - Fails closed: a repository that throws gives a `StoreUnavailableError`, one
 *   past `repositoryTimeoutMs` (or an encoder past `passwordEncoderTimeoutMs`) a
 *   `DeadlineExceededError`: 503 with `Retry-After`, never anonymous.
 *
 * @example
 * ```ts
 * import { RepositoryAuthenticator, SqlUserRepository } from 'portcullis';
 * import { createDelegatingPasswordEncoder } from 'portcullis/argon2';
 * const auth = new RepositoryAuthenticator({
 *   users: new SqlUserRepository({ query: (sql, params) => pool.query(sql, params) }),
 *   passwordEncoder: createDelegatingPasswordEncoder(),
 * });
 * transform.configAuthenticator(() => auth);
 * ```
 */
export class RepositoryAuthenticator<R extends UserRepository = UserRepository>
  implements Authenticator, CredentialsAuthenticator
{
  /** The method recorded on users authenticated by HTTP Basic: `basic`. */
  readonly authenticationMethod = 'basic';
  /** The repository the users come from. */
  protected readonly users: R;
  readonly #options: ResolvedAuthenticatorOptions;
  readonly #userChanges: UserChangeNotifier;
  readonly #unsubscribe: () => void;
  readonly #basicUsers = new WeakMap<User, AuthenticatedUser>();
  #encoder: PasswordEncoder | undefined;
  #throttle: LoginThrottle | undefined;
  #verifier: CredentialVerifier | undefined;

  /** @param options - see {@link RepositoryAuthenticatorOptions} */
  constructor(options: RepositoryAuthenticatorOptions<R>) {
    this.#options = resolveAuthenticatorOptions(options);
    this.#throttle = this.#options.throttle;
    this.users = requireRepository(options.users);
    const encoder: unknown = options.passwordEncoder;
    if (encoder !== undefined) {
      this.#encoder = requireEncoder('passwordEncoder', encoder);
    } else if (new.target === RepositoryAuthenticator) {
      this.assertConfigured();
    }
    this.#userChanges = this.#options.userChanges ?? new MemoryUserChangeNotifier();
    const unsubscribe = this.#userChanges.subscribe((username) => {
      this.#verifier?.forget(username);
    });
    // Changes of other instances may have been missed (the channel went down).
    const unsubscribeReset = this.#userChanges.onReset?.(() => this.#verifier?.forgetAll());
    this.#unsubscribe = () => {
      unsubscribe();
      unsubscribeReset?.();
    };
  }

  /**
   * Throws the `ConfigurationError` the first request would otherwise meet: no
   * password encoder set. Whoever installs the authenticator calls it at start-up.
   */
  assertConfigured(): void {
    if (this.#encoder === undefined) {
      throw new ConfigurationError(
        'passwordEncoder',
        'must be set: passwords are checked with it (e.g. createDelegatingPasswordEncoder() from portcullis/argon2)',
      );
    }
  }

  /**
   * The explicit outcome of the request's HTTP Basic credentials: `anonymous`
   * without a Basic header, `authenticated`, or `failed` with its reason. Synchronous
   * on a cache hit. Rejects only with an `UnavailableError` (503).
   */
  attempt(request: SecurityRequest): AuthenticationOutcome | Promise<AuthenticationOutcome> {
    const verdict = this.#basic(request);
    if (verdict === null) return Outcome.anonymous();
    return isPromiseLike(verdict)
      ? verdict.then((v) => this.#outcome(v, 'basic'))
      : this.#outcome(verdict, 'basic');
  }

  /**
   * Checks a username and password from a login form or a JSON body with every
   * protection of {@link RepositoryAuthenticator.attempt}. Non-strings, an empty
   * username or one with control characters fail with `malformed-credentials`; more
   * than `maxHeaderLength` characters in total with `credentials-too-large`.
   */
  async attemptCredentials(
    username: unknown,
    password: unknown,
    options: AttemptCredentialsOptions = {},
  ): Promise<AuthenticationOutcome> {
    const method = options.authenticationMethod ?? 'password';
    return this.#outcome(await this.#form(username, password, options), method);
  }

  /** The user of the request's HTTP Basic credentials, or `null`. */
  getUser(request: SecurityRequest): User | null | Promise<User | null> {
    const verdict = this.#basic(request);
    if (verdict === null) return null;
    return isPromiseLike(verdict) ? verdict.then(userOfVerdict) : userOfVerdict(verdict);
  }

  /** {@link RepositoryAuthenticator.getUser} as an {@link AuthenticatedUser} with method `basic`. */
  authenticate(
    request: SecurityRequest,
  ): AuthenticatedUser | null | Promise<AuthenticatedUser | null> {
    const user = this.getUser(request);
    return isPromiseLike(user)
      ? user.then((found) => (found === null ? null : this.#authenticated(found, 'basic')))
      : user === null
        ? null
        : this.#authenticated(user, 'basic');
  }

  /**
   * {@link RepositoryAuthenticator.attemptCredentials} answering the user or `null`.
   *
   * @example
   * ```ts
   * const user = await auth.verifyCredentials(body.username, body.password, { request, authenticationMethod: 'form' });
   * ```
   */
  async verifyCredentials(
    username: unknown,
    password: unknown,
    options: VerifyCredentialsOptions = {},
  ): Promise<User | null> {
    return userOfVerdict(await this.#form(username, password, options));
  }

  /**
   * Forgets what this instance cached of `username` and announces the change to
   * every instance through `userChanges`. Call it after changing a user elsewhere
   * (a new password, a lock, new roles) when the repository was not given the same
   * notifier. Answers the notifier's promise, if any.
   */
  userChanged(username: string): MaybePromise<void> {
    if (typeof username !== 'string') throw new TypeError('username: must be a string');
    this.#verifier?.forget(username);
    return this.#userChanges.publish(username);
  }

  /** Stops listening to `userChanges` (for an authenticator that is thrown away). */
  close(): void {
    this.#unsubscribe();
  }

  /** Sets the encoder before the first authentication (the in-memory builder). */
  protected setPasswordEncoder(encoder: PasswordEncoder): void {
    this.requireConfigurable('passwordEncoder');
    this.#encoder = requireEncoder('passwordEncoder', encoder);
  }

  /** Sets the login throttle (or `false` for none) before the first authentication (the in-memory builder). */
  protected setThrottle(throttle: LoginThrottle | false): void {
    this.requireConfigurable('throttle');
    // Absent is not "the default" here: a throttle or `false`, said explicitly.
    if ((throttle as unknown) === undefined) {
      throw new ConfigurationError('throttle', 'must be a LoginThrottle or false');
    }
    this.#throttle = throttleOption(throttle, undefined);
  }

  /**
   * A real stored hash that an unknown user is checked against when the encoder
   * cannot encode a dummy hash (a delegating encoder without a default id), so an
   * unknown user still costs a full verification. The default: none (the last hash
   * the repository answered stands in).
   */
  protected fallbackPasswordHash(): string | undefined {
    return undefined;
  }

  /** Throws when the configuration is frozen (the first authentication happened). */
  protected requireConfigurable(option: string): void {
    if (this.#verifier !== undefined) {
      throw new ConfigurationError(option, 'cannot change after the first authentication');
    }
  }

  #basic(request: SecurityRequest): Verdict | Promise<Verdict> | null {
    const verifier = this.#start();
    const input = basicInput(request, this.#options.maxHeaderLength);
    return input === null ? null : this.#check(verifier, input, 'basic', request);
  }

  #form(
    username: unknown,
    password: unknown,
    options: AttemptCredentialsOptions,
  ): Promise<Verdict> {
    const verifier = this.#start();
    const input = formInput(username, password, this.#options.maxHeaderLength);
    const method = options.authenticationMethod ?? 'password';
    return Promise.resolve(this.#check(verifier, input, method, options.request));
  }

  #check(
    verifier: CredentialVerifier,
    input: CredentialInput,
    method: string,
    request: SecurityRequest | undefined,
  ): Verdict | Promise<Verdict> {
    if (!input.ok)
      return this.#report({ ok: false, reason: input.reason }, undefined, method, request);
    const { username } = input;
    const outcome = verifier.verify(username, input.password, request);
    if (!isPromiseLike(outcome)) return this.#report(outcome, username, method, request);
    return outcome.then(
      (o) => this.#report(o, username, method, request),
      (error: unknown) => {
        if (error instanceof DeadlineExceededError) {
          publishDeadlineExceeded(error, this.#options.events ?? securityEvents, request);
        }
        throw error;
      },
    );
  }

  #report(
    outcome: VerificationOutcome,
    username: string | undefined,
    method: string,
    request: SecurityRequest | undefined,
  ): Verdict {
    const { events } = this.#options;
    if (outcome.ok) {
      publishAuthentication(events, { ok: true, username: outcome.user.username }, method, request);
      return outcome;
    }
    publishAuthentication(events, { ok: false, username, reason: outcome.reason }, method, request);
    return {
      ok: false,
      outcome: Outcome.failed(outcome.reason, username === undefined ? {} : { username }),
    };
  }

  #outcome(verdict: Verdict, method: string): AuthenticationOutcome {
    return verdict.ok
      ? Outcome.authenticated(this.#authenticated(verdict.user, method))
      : verdict.outcome;
  }

  /** One immutable AuthenticatedUser per (immutable) User for Basic, made once. */
  #authenticated(user: User, method: string): AuthenticatedUser {
    if (method !== 'basic') return AuthenticatedUser.from(user, { authenticationMethod: method });
    let authenticated = this.#basicUsers.get(user);
    if (authenticated === undefined) {
      authenticated = AuthenticatedUser.from(user, { authenticationMethod: 'basic' });
      this.#basicUsers.set(user, authenticated);
    }
    return authenticated;
  }

  /** Freezes the configuration at the first authentication and builds the verifier. */
  #start(): CredentialVerifier {
    if (this.#verifier !== undefined) return this.#verifier;
    this.assertConfigured();
    const options = this.#options;
    const { cache } = options;
    this.#verifier = new CredentialVerifier({
      encoder: this.#encoder as PasswordEncoder,
      users: new RepositoryCalls(this.users, options.repositoryTimeoutMs),
      cache: cache === null ? null : new TtlCache<string, CachedCredential>(cache),
      semaphore: new Semaphore(options.maxConcurrentVerifications, options.maxQueuedVerifications),
      timeoutMs: options.passwordEncoderTimeoutMs,
      onPasswordUpgrade: options.onPasswordUpgrade,
      announce: (username) => {
        announceUserChange(this.#userChanges, username);
      },
      fallbackHash: () => this.fallbackPasswordHash(),
      listening: () => this.#userChanges.listening !== false,
      throttle: this.#throttle,
    });
    return this.#verifier;
  }
}

function userOfVerdict(verdict: Verdict): User | null {
  return verdict.ok ? verdict.user : null;
}
