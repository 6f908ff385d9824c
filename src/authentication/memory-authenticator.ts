import { AuthenticatedUser } from '../core/authenticated-user.js';
import { publishDeadlineExceeded } from '../core/deadline.js';
import { ConfigurationError, DeadlineExceededError } from '../core/errors.js';
import { securityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import type { Authenticator } from '../core/security.js';
import { User } from '../core/user.js';
import { isPromiseLike } from '../lib/promise.js';
import { Semaphore } from '../lib/semaphore.js';
import { TtlCache } from '../lib/ttl-cache.js';
import { CredentialVerifier, type VerificationOutcome } from './credential-verifier.js';
import { parseBasicCredentials } from './http-basic.js';
import {
  requireEncoder,
  resolveMemoryOptions,
  type MemoryAuthenticatorOptions,
  type ResolvedMemoryOptions,
} from './memory-options.js';
import type { PasswordEncoder } from '../password/index.js';
import { publishAuthentication } from './publish.js';

/** Options of {@link MemoryAuthenticator.verifyCredentials}. */
export interface VerifyCredentialsOptions {
  /** The request the credentials came with, summarized in the events. */
  readonly request?: SecurityRequest;
  /**
   * The method name in the events, e.g. `form`.
   * @defaultValue `'password'`
   */
  readonly authenticationMethod?: string;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/u;

/**
 * Users held in memory, authenticated by HTTP Basic (RFC 7617). The users are fixed
 * at configuration time: once the first request was authenticated, neither users nor
 * encoder can change (except a password upgrade, below).
 *
 * - Every failure gives `null` (never a throw) and an `authentication-failure` event
 *   with its reason; a success gives an `authentication-success` event. The one
 *   rejection: a password encoder call that passes `passwordEncoderTimeoutMs` gives
 *   a `DeadlineExceededError` (503 through `SecurityTransform`) and a
 *   `deadline-exceeded` event, never `null`, since the credential was not checked.
 * - An unknown username costs what a wrong password costs: the password is checked
 *   against a dummy hash made once by the configured encoder.
 * - Verified credentials are cached briefly (see {@link MemoryAuthenticatorOptions.cache});
 *   verifications run at most `maxConcurrentVerifications` at once, and beyond
 *   `maxQueuedVerifications` waiting an attempt fails with reason `too-many-attempts`.
 * - When a login succeeds and `passwordEncoder.upgradeEncoding(stored)` is true, the
 *   password is re-encoded and the in-memory user replaced (Spring's
 *   `UserDetailsPasswordService`); `onPasswordUpgrade` lets the app persist it.
 * - Usernames are compared exactly, code unit by code unit: no case folding and no
 *   Unicode normalization (`é` precomposed and decomposed are different users).
 *
 * @example
 * ```ts
 * import { AuthenticationManager, ScryptPasswordEncoder, User } from 'portcullis';
 * const encoder = new ScryptPasswordEncoder();
 * const auth = AuthenticationManager.inMemoryAuthentication()
 *   .passwordEncoder(encoder)
 *   .withUser(User.withEncodedPassword('admin', await encoder.encode('s3cret')).withRoles(['ADMIN']));
 * const user = await auth.authenticate(request); // AuthenticatedUser | null
 * ```
 */
export class MemoryAuthenticator implements Authenticator {
  /** The method recorded on authenticated users: `basic`. */
  readonly authenticationMethod = 'basic';
  readonly #users = new Map<string, User>();
  readonly #authenticatedUsers = new WeakMap<User, AuthenticatedUser>();
  readonly #options: ResolvedMemoryOptions;
  #encoder: PasswordEncoder | undefined;
  #verifier: CredentialVerifier | undefined;

  /** @param options - everything the builder methods set, as one object */
  constructor(options: MemoryAuthenticatorOptions = {}) {
    this.#options = resolveMemoryOptions(options);
    if (options.passwordEncoder !== undefined) this.passwordEncoder(options.passwordEncoder);
    if (options.users !== undefined) {
      const users: unknown = options.users;
      if (typeof users !== 'object' || users === null || !(Symbol.iterator in users)) {
        throw new ConfigurationError('users', 'must be an array of User');
      }
      for (const user of options.users) this.withUser(user);
    }
  }

  /** Sets the encoder that checks passwords against the users' encoded passwords. */
  passwordEncoder(encoder: PasswordEncoder): this {
    this.#requireConfigurable('passwordEncoder');
    this.#encoder = requireEncoder('passwordEncoder', encoder);
    return this;
  }

  /**
   * Throws the `ConfigurationError` the first request would otherwise meet: no
   * password encoder set. `SecurityTransform`, the tRPC and GraphQL context
   * factories and `AuthenticationManager.anyOf` call it when the authenticator is
   * installed, so the mistake fails the start.
   */
  assertConfigured(): void {
    if (this.#encoder === undefined) {
      throw new ConfigurationError(
        'passwordEncoder',
        'must be set: an in-memory store checks passwords with it (e.g. createDelegatingPasswordEncoder() from portcullis/argon2)',
      );
    }
  }

  /** Adds a user; its username must be new and must not contain `:` (RFC 7617 §2). */
  withUser(user: User): this {
    this.#requireConfigurable('users');
    if (!(user instanceof User)) throw new ConfigurationError('users', 'must be User instances');
    if (user.username.includes(':')) {
      throw new ConfigurationError('users', 'a username must not contain ":" (RFC 7617)');
    }
    if (this.#users.has(user.username)) {
      throw new ConfigurationError('users', `duplicate username ${JSON.stringify(user.username)}`);
    }
    this.#users.set(user.username, user);
    return this;
  }

  /** The user with this exact username, or `null` (after an upgrade, with the new hash). */
  findUser(username: string): User | null {
    if (typeof username !== 'string') return null;
    return this.#users.get(username) ?? null;
  }

  /**
   * The user of the request's HTTP Basic credentials, or `null`. Never throws for
   * anything the client sends; throws a `ConfigurationError` when no password
   * encoder was configured.
   */
  getUser(request: SecurityRequest): User | null | Promise<User | null> {
    const verifier = this.#start();
    const parsed = parseBasicCredentials(request.header('authorization'), {
      maxHeaderLength: this.#options.maxHeaderLength,
    });
    if (parsed === null) return null;
    if (!parsed.ok) {
      this.#publish({ ok: false, username: undefined, reason: parsed.reason }, 'basic', request);
      return null;
    }
    return this.#verify(verifier, parsed.username, parsed.password, 'basic', request);
  }

  /**
   * {@link MemoryAuthenticator.getUser} as an {@link AuthenticatedUser} with method
   * `basic`. Synchronous when the credential is in the verified-credential cache.
   */
  authenticate(
    request: SecurityRequest,
  ): AuthenticatedUser | null | Promise<AuthenticatedUser | null> {
    const user = this.getUser(request);
    return isPromiseLike(user)
      ? Promise.resolve(user).then((found) => this.#authenticated(found))
      : this.#authenticated(user);
  }

  /** One immutable AuthenticatedUser per (immutable) User, made once. */
  #authenticated(user: User | null): AuthenticatedUser | null {
    if (user === null) return null;
    let authenticated = this.#authenticatedUsers.get(user);
    if (authenticated === undefined) {
      authenticated = AuthenticatedUser.from(user, { authenticationMethod: 'basic' });
      this.#authenticatedUsers.set(user, authenticated);
    }
    return authenticated;
  }

  /**
   * Checks a username and password from elsewhere than a Basic header (a login form,
   * a JSON body) with the same protections: dummy hash for unknown users, cache,
   * bounded concurrency, events. Non-strings, an empty username or one with control
   * characters give `null` (`malformed-credentials`); more than `maxHeaderLength`
   * characters in total give `null` (`credentials-too-large`).
   *
   * @example
   * ```ts
   * const user = await auth.verifyCredentials(body.username, body.password, {
   *   request, authenticationMethod: 'form',
   * });
   * if (!user) return reply(401);
   * ```
   */
  async verifyCredentials(
    username: unknown,
    password: unknown,
    options: VerifyCredentialsOptions = {},
  ): Promise<User | null> {
    const verifier = this.#start();
    const method = options.authenticationMethod ?? 'password';
    const { request } = options;
    if (typeof username !== 'string' || typeof password !== 'string') {
      this.#publish(
        { ok: false, username: undefined, reason: 'malformed-credentials' },
        method,
        request,
      );
      return null;
    }
    if (username.length + password.length > this.#options.maxHeaderLength) {
      this.#publish(
        { ok: false, username: undefined, reason: 'credentials-too-large' },
        method,
        request,
      );
      return null;
    }
    if (username === '' || CONTROL.test(username)) {
      this.#publish(
        { ok: false, username: undefined, reason: 'malformed-credentials' },
        method,
        request,
      );
      return null;
    }
    return this.#verify(verifier, username, password, method, request);
  }

  #verify(
    verifier: CredentialVerifier,
    username: string,
    password: string,
    method: string,
    request: SecurityRequest | undefined,
  ): User | null | Promise<User | null> {
    const outcome = verifier.verify(username, password);
    return isPromiseLike(outcome)
      ? Promise.resolve(outcome).then(
          (o) => this.#report(o, username, method, request),
          (error: unknown) => {
            // The only rejection: the password encoder passed its deadline (fail closed).
            if (error instanceof DeadlineExceededError) {
              publishDeadlineExceeded(error, this.#options.events ?? securityEvents, request);
            }
            throw error;
          },
        )
      : this.#report(outcome, username, method, request);
  }

  #report(
    outcome: VerificationOutcome,
    username: string,
    method: string,
    request: SecurityRequest | undefined,
  ): User | null {
    if (outcome.ok) {
      this.#publish({ ok: true, username }, method, request);
      return outcome.user;
    }
    this.#publish({ ok: false, username, reason: outcome.reason }, method, request);
    return null;
  }

  #publish(
    outcome: Parameters<typeof publishAuthentication>[1],
    method: string,
    request: SecurityRequest | undefined,
  ): void {
    publishAuthentication(this.#options.events, outcome, method, request);
  }

  /** Freezes the configuration at the first authentication and builds the verifier. */
  #start(): CredentialVerifier {
    if (this.#verifier !== undefined) return this.#verifier;
    this.assertConfigured();
    const encoder = this.#encoder as PasswordEncoder;
    const { cache, maxConcurrentVerifications, maxQueuedVerifications, passwordEncoderTimeoutMs } =
      this.#options;
    this.#verifier = new CredentialVerifier({
      encoder,
      users: this.#users,
      cache: cache === null ? null : new TtlCache<string, true>(cache),
      semaphore: new Semaphore(maxConcurrentVerifications, maxQueuedVerifications),
      timeoutMs: passwordEncoderTimeoutMs,
      onPasswordUpgrade: this.#options.onPasswordUpgrade,
    });
    return this.#verifier;
  }

  #requireConfigurable(option: string): void {
    if (this.#verifier !== undefined) {
      throw new ConfigurationError(option, 'cannot change after the first authentication');
    }
  }
}
