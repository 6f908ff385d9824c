import { randomBytes } from 'node:crypto';
import { DEFAULT_DEADLINES } from '../core/deadline.js';
import { DeadlineExceededError, UnavailableError } from '../core/errors.js';
import type { AuthenticationFailureReason } from '../core/events.js';
import { accountRefusal, type User } from '../core/user.js';
import { withDeadline } from '../lib/deadline.js';
import { isPromiseLike } from '../lib/promise.js';
import type { Semaphore } from '../lib/semaphore.js';
import type { TtlCache } from '../lib/ttl-cache.js';
import { isPasswordEncodingError } from '../password/errors.js';
import type { PasswordEncoder } from '../password/index.js';
import type { LimitedRequest } from '../throttle/limiter-store.js';
import type { LoginAttemptResult, LoginThrottle } from '../throttle/login-throttle.js';
import { CredentialKeyer } from './credential-key.js';
import type { RepositoryCalls } from './repository-calls.js';

/** The result of a credential check. @internal */
export type VerificationOutcome =
  | { readonly ok: true; readonly user: User }
  | { readonly ok: false; readonly reason: AuthenticationFailureReason };

/** A verified credential in the cache: the user it proved, and the name it was presented under. @internal */
export interface CachedCredential {
  readonly user: User;
  readonly presented: string;
}

/** What a {@link CredentialVerifier} works with. @internal */
export interface CredentialVerifierConfig {
  readonly encoder: PasswordEncoder;
  /** The user repository, its calls bounded and failing closed. */
  readonly users: RepositoryCalls;
  /** Verified-credential cache, or `null` when caching is off. */
  readonly cache: TtlCache<string, CachedCredential> | null;
  readonly semaphore: Semaphore;
  /** The deadline of one encoder call, in milliseconds. @defaultValue `5_000` */
  readonly timeoutMs?: number;
  readonly onPasswordUpgrade:
    ((username: string, encodedPassword: string) => void | PromiseLike<void>) | undefined;
  /** Announces that a user's stored password changed (after an upgrade), to every instance. */
  readonly announce: (username: string) => void;
  /** A real stored hash to check unknown users against when the encoder cannot make a dummy. */
  readonly fallbackHash?: () => string | undefined;
  /**
   * Whether announced changes are heard now (the notifier's `listening`): while not,
   * the cache neither answers nor is filled. @defaultValue always
   */
  readonly listening?: () => boolean;
  /** Counts the checks per username and address, refusing throttled ones before any hashing. */
  readonly throttle?: LoginThrottle | undefined;
}

interface Flight {
  readonly names: Set<string>;
  readonly promise: Promise<VerificationOutcome>;
}

/**
 * Checks a username and password against the repository: cache first (a hit answers
 * synchronously and asks the repository nothing), else one shared flight per
 * (username, password): the repository lookup, then the encoder under the semaphore.
 * An unknown username is checked against a dummy hash made by the same encoder, so
 * it costs what a wrong password costs (the repository lookup included). The
 * account state is looked at only after the password matched.
 *
 * Rejects only with an `UnavailableError`: a `DeadlineExceededError` when an encoder
 * or repository call passes its deadline (the semaphore slot is given back at the
 * deadline), a `StoreUnavailableError` when the repository fails.
 *
 * @internal
 */
export class CredentialVerifier {
  readonly #config: CredentialVerifierConfig;
  readonly #keyer = new CredentialKeyer();
  readonly #inFlight = new Map<string, Flight>();
  readonly #upgrading = new Set<string>();
  readonly #warned = new Set<string>();
  #dummyHash: Promise<string> | undefined;
  /** A real stored hash seen lately: what an unknown user is checked against when no dummy can be made. */
  #fallbackHash: string | undefined;
  /** Counts announced changes: a flight that saw one since it started caches nothing. */
  #changes = 0;

  constructor(config: CredentialVerifierConfig) {
    this.#config = config;
  }

  /**
   * Whether the password is the user's. Synchronous on a cache hit (with a
   * synchronous throttle store). A throttled username or address rejects with a
   * `TooManyRequestsError` before anything is checked, a cached right password too.
   */
  verify(
    username: string,
    password: string,
    request?: LimitedRequest,
  ): VerificationOutcome | Promise<VerificationOutcome> {
    const key = this.#keyer.key(username, password, '');
    const hit = this.#listening() ? this.#config.cache?.get(key) : undefined;
    if (hit !== undefined) {
      const known: VerificationOutcome = { ok: true, user: hit.user };
      const checked = this.#config.throttle?.verified(username, request);
      return isPromiseLike(checked) ? checked.then(() => known) : known;
    }
    let flight = this.#inFlight.get(key);
    if (flight === undefined) {
      const names = new Set([username]);
      const promise = this.#throttled(key, names, username, password, request).finally(() => {
        if (this.#inFlight.get(key) === current) this.#inFlight.delete(key);
      });
      const current: Flight = { names, promise };
      this.#inFlight.set(key, current);
      flight = current;
    }
    return flight.promise;
  }

  /** Forgets every cached or in-flight verification (changes may have been missed). */
  forgetAll(): void {
    this.#changes++;
    this.#config.cache?.clear();
    this.#inFlight.clear();
  }

  #listening(): boolean {
    const listening = this.#config.listening;
    return listening === undefined || listening();
  }

  /** Forgets every cached or in-flight verification of `username` (its credentials changed). */
  forget(username: string): void {
    this.#changes++;
    this.#config.cache?.deleteWhere(
      (entry) => entry.presented === username || entry.user.username === username,
    );
    for (const [key, flight] of this.#inFlight) {
      if (flight.names.has(username)) this.#inFlight.delete(key);
    }
  }

  /** {@link CredentialVerifier.#attempt}, admitted by the throttle and its result recorded there. */
  #throttled(
    key: string,
    names: Set<string>,
    username: string,
    password: string,
    request: LimitedRequest | undefined,
  ): Promise<VerificationOutcome> {
    const throttle = this.#config.throttle;
    if (throttle === undefined) return this.#attempt(key, names, username, password);
    return throttle.guard(
      username,
      request,
      () => this.#attempt(key, names, username, password),
      throttleResult,
    );
  }

  async #attempt(
    key: string,
    names: Set<string>,
    username: string,
    password: string,
  ): Promise<VerificationOutcome> {
    const changes = this.#changes;
    // A synchronous repository (memory) answers without a turn of the event loop.
    const found = this.#config.users.findByUsername(username);
    const user = isPromiseLike(found) ? await found : found;
    let stored: string;
    if (user === null) {
      const dummy = await this.#dummy();
      if (dummy === undefined) return { ok: false, reason: 'unknown-user' };
      stored = dummy;
    } else {
      names.add(user.username);
      this.#fallbackHash = user.password;
      stored = user.password;
    }
    const checked = await this.#matches(password, stored, user !== null);
    // Refused unchecked: the same answer whether or not the user exists.
    if (checked === 'too-many-attempts') return { ok: false, reason: checked };
    if (user === null) return { ok: false, reason: 'unknown-user' };
    if (checked !== true)
      return { ok: false, reason: checked === false ? 'bad-credentials' : checked };
    // Only now, with the password proven, may the account's state be told.
    const refusal = accountRefusal(user);
    if (refusal !== undefined) return { ok: false, reason: refusal };
    if (changes === this.#changes && this.#listening()) {
      this.#config.cache?.set(key, { user, presented: username });
    }
    const upgraded = await this.#upgrade(user, password, key, username);
    return { ok: true, user: upgraded ?? user };
  }

  /** `true`, `false`, or the reason the check could not be made (never for an unknown user's). */
  async #matches(
    password: string,
    stored: string,
    known: boolean,
  ): Promise<boolean | AuthenticationFailureReason> {
    const { encoder, semaphore } = this.#config;
    try {
      // `unknown`: only a real `true` from a (possibly untyped) encoder counts as a match.
      // The deadline is inside the slot: a call that never settles gives its slot back.
      const result = await semaphore.run(() =>
        this.#bounded(async (): Promise<unknown> => encoder.matches(password, stored)),
      );
      if (!result.ok) return 'too-many-attempts';
      return result.value === true;
    } catch (error) {
      if (error instanceof DeadlineExceededError) throw error;
      if (!known) return false;
      if (isPasswordEncodingError(error)) return 'unknown-password-encoding';
      this.#warn('the password encoder failed', error);
      return 'other';
    }
  }

  /** Re-encodes the password when the encoder asks for it; never fails the login. */
  async #upgrade(
    user: User,
    password: string,
    key: string,
    presented: string,
  ): Promise<User | undefined> {
    const { encoder, semaphore, users } = this.#config;
    const { username } = user;
    if (!users.canUpdatePassword || this.#upgrading.has(username)) return undefined;
    this.#upgrading.add(username);
    try {
      const upgrade: unknown = encoder.upgradeEncoding(user.password);
      if (upgrade !== true) return undefined;
      const result = await semaphore.run(() =>
        this.#bounded(async (): Promise<unknown> => encoder.encode(password)),
      );
      if (!result.ok) return undefined; // busy: try again at a later login
      const encoded = result.value;
      if (typeof encoded !== 'string' || encoded === '') return undefined;
      // Compare and set: the repository replaces only the very password just checked.
      const updated = await users.updatePassword(user, encoded);
      if (updated === null) return undefined;
      this.#config.announce(username);
      // The user as stored now (a SQL repository reads it back): locked meanwhile, it is
      // not cached, and the next login is refused.
      if (accountRefusal(updated) !== undefined) return undefined;
      if (this.#listening()) this.#config.cache?.set(key, { user: updated, presented });
      this.#notify(username, encoded);
      return updated;
    } catch (error) {
      this.#warn('a password upgrade failed', error);
      return undefined;
    } finally {
      this.#upgrading.delete(username);
    }
  }

  #notify(username: string, encoded: string): void {
    const hook = this.#config.onPasswordUpgrade;
    if (hook === undefined) return;
    try {
      const result = hook(username, encoded);
      if (isPromiseLike(result)) {
        result.then(undefined, (error: unknown) => {
          this.#warn('onPasswordUpgrade failed', error, true);
        });
      }
    } catch (error) {
      this.#warn('onPasswordUpgrade failed', error, true);
    }
  }

  /**
   * The hash an unknown user is checked against: the dummy, encoded once by the
   * configured encoder (a failure is retried later). When the encoder cannot encode
   * (a DelegatingPasswordEncoder without a default id), a real stored hash seen
   * lately stands in; `undefined` when there is none yet.
   */
  async #dummy(): Promise<string | undefined> {
    this.#dummyHash ??= this.#bounded(async (): Promise<unknown> =>
      this.#config.encoder.encode(randomBytes(24).toString('base64url')),
    )
      .then((hash) => {
        if (typeof hash !== 'string') throw new TypeError('encode() did not return a string');
        return hash;
      })
      .catch((error: unknown) => {
        this.#dummyHash = undefined;
        throw error;
      });
    try {
      return await this.#dummyHash;
    } catch (error) {
      if (error instanceof UnavailableError) throw error;
      this.#warn('the dummy password hash could not be encoded', error);
      return this.#config.fallbackHash?.() ?? this.#fallbackHash;
    }
  }

  /** One encoder call under the deadline (`DeadlineExceededError`, operation `password-encoder`). */
  #bounded<T>(call: () => Promise<T>): Promise<T> {
    const ms = this.#config.timeoutMs ?? DEFAULT_DEADLINES.passwordEncoderMs;
    return withDeadline(call(), ms, () => new DeadlineExceededError('password-encoder', ms));
  }

  /** Reports an unexpected failure as a process warning, by error name only (once per kind, unless `always`). */
  #warn(what: string, error: unknown, always = false): void {
    if (!always) {
      if (this.#warned.has(what)) return;
      this.#warned.add(what);
    }
    const name = error instanceof Error ? error.name : typeof error;
    process.emitWarning(`portcullis: ${what} (${name})`, { code: 'PORTCULLIS_AUTHENTICATION' });
  }
}

/** How a verification counts for the throttle: a right password (whatever the account's state), a guess that failed, or no check. */
function throttleResult(outcome: VerificationOutcome): LoginAttemptResult {
  if (outcome.ok) return 'matched';
  switch (outcome.reason) {
    case 'unknown-user':
    case 'bad-credentials':
      return 'failed';
    case 'account-disabled':
    case 'account-locked':
    case 'account-expired':
    case 'credentials-expired':
      return 'matched';
    default:
      return 'unchecked';
  }
}
