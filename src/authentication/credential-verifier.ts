import { randomBytes } from 'node:crypto';
import { DEFAULT_DEADLINES } from '../core/deadline.js';
import { DeadlineExceededError } from '../core/errors.js';
import type { AuthenticationFailureReason } from '../core/events.js';
import type { User } from '../core/user.js';
import { withDeadline } from '../lib/deadline.js';
import { isPromiseLike } from '../lib/promise.js';
import type { Semaphore } from '../lib/semaphore.js';
import type { TtlCache } from '../lib/ttl-cache.js';
import { CredentialKeyer } from './credential-key.js';
import type { PasswordEncoder } from '../password/index.js';

/** The result of a credential check. @internal */
export type VerificationOutcome =
  | { readonly ok: true; readonly user: User }
  | { readonly ok: false; readonly reason: AuthenticationFailureReason };

/** What a {@link CredentialVerifier} works with. @internal */
export interface CredentialVerifierConfig {
  readonly encoder: PasswordEncoder;
  /** The user store; replaced entries after a password upgrade. */
  readonly users: Map<string, User>;
  /** Verified-credential cache, or `null` when caching is off. */
  readonly cache: TtlCache<string, true> | null;
  readonly semaphore: Semaphore;
  /** The deadline of one encoder call, in milliseconds. @defaultValue `5_000` */
  readonly timeoutMs?: number;
  readonly onPasswordUpgrade:
    ((username: string, encodedPassword: string) => void | PromiseLike<void>) | undefined;
}

/**
 * Checks a username and password against the store: cache first, then the encoder
 * under the semaphore, sharing identical checks already in flight. An unknown
 * username is checked against a dummy hash made by the same encoder, so it costs
 * what a wrong password costs. Never throws, but rejects with a
 * `DeadlineExceededError` (operation `password-encoder`) when an encoder call does
 * not settle within `timeoutMs`: its semaphore slot is given back at the deadline
 * (the abandoned call holds no thread of ours; a real hash still finishing on
 * libuv's pool is at most one per slot per deadline), so a hung encoder cannot
 * block every later login.
 *
 * @internal
 */
export class CredentialVerifier {
  readonly #config: CredentialVerifierConfig;
  readonly #keyer = new CredentialKeyer();
  readonly #inFlight = new Map<string, Promise<VerificationOutcome>>();
  readonly #upgrading = new Set<string>();
  #dummyHash: Promise<string> | undefined;
  readonly #warned = new Set<string>();

  constructor(config: CredentialVerifierConfig) {
    this.#config = config;
  }

  /**
   * Whether the password is the user's; rejects only with a `DeadlineExceededError`. A cache hit answers
   * synchronously (no promise on the hot path); everything else is asynchronous.
   */
  verify(username: string, password: string): VerificationOutcome | Promise<VerificationOutcome> {
    const user = this.#config.users.get(username);
    if (user !== undefined && this.#config.cache !== null) {
      const key = this.#keyer.key(username, password, user.password);
      if (this.#config.cache.get(key) === true) return { ok: true, user };
      return this.#verifyUncached(user, username, password, user.password, key);
    }
    return this.#verifySlow(user, username, password);
  }

  async #verifySlow(
    user: User | undefined,
    username: string,
    password: string,
  ): Promise<VerificationOutcome> {
    let stored: string;
    if (user === undefined) {
      try {
        stored = await this.#dummy();
      } catch (error) {
        if (error instanceof DeadlineExceededError) throw error;
        // E.g. a DelegatingPasswordEncoder without a default id cannot encode: check
        // against a real user's hash instead (the result is ignored), so an unknown
        // username still costs a full verification.
        this.#warn('the dummy password hash could not be encoded', error);
        const fallback = this.#config.users.values().next();
        if (fallback.done === true) return { ok: false, reason: 'unknown-user' };
        stored = fallback.value.password;
      }
    } else {
      stored = user.password;
    }
    return this.#verifyUncached(
      user,
      username,
      password,
      stored,
      this.#keyer.key(username, password, stored),
    );
  }

  /** Shares a check already in flight for the same key, or starts one. */
  #verifyUncached(
    user: User | undefined,
    username: string,
    password: string,
    stored: string,
    key: string,
  ): Promise<VerificationOutcome> {
    let flight = this.#inFlight.get(key);
    if (flight === undefined) {
      flight = this.#check(user, username, password, stored, key).finally(() => {
        this.#inFlight.delete(key);
      });
      this.#inFlight.set(key, flight);
    }
    return flight;
  }

  async #check(
    user: User | undefined,
    username: string,
    password: string,
    stored: string,
    key: string,
  ): Promise<VerificationOutcome> {
    const { encoder, semaphore } = this.#config;
    let matched: boolean;
    try {
      // `unknown`: only a real `true` from a (possibly untyped) encoder counts as a match.
      // The deadline is inside the slot: a call that never settles gives its slot back.
      const result = await semaphore.run(() =>
        this.#bounded(async (): Promise<unknown> => encoder.matches(password, stored)),
      );
      if (!result.ok) return { ok: false, reason: 'too-many-attempts' };
      matched = result.value === true;
    } catch (error) {
      if (error instanceof DeadlineExceededError) throw error;
      if (user === undefined) return { ok: false, reason: 'unknown-user' };
      if (isEncodingError(error)) return { ok: false, reason: 'unknown-password-encoding' };
      this.#warn('the password encoder failed', error);
      return { ok: false, reason: 'other' };
    }
    if (user === undefined) return { ok: false, reason: 'unknown-user' };
    if (!matched) return { ok: false, reason: 'bad-credentials' };
    this.#config.cache?.set(key, true);
    await this.#upgrade(user, password);
    return { ok: true, user: this.#config.users.get(username) ?? user };
  }

  /** Re-encodes the password when the encoder asks for it; never fails the login. */
  async #upgrade(user: User, password: string): Promise<void> {
    const { encoder, semaphore, users } = this.#config;
    const { username } = user;
    if (this.#upgrading.has(username)) return;
    this.#upgrading.add(username);
    try {
      const upgrade: unknown = encoder.upgradeEncoding(user.password);
      if (upgrade !== true) return;
      const result = await semaphore.run(() =>
        this.#bounded(async (): Promise<unknown> => encoder.encode(password)),
      );
      if (!result.ok) return; // busy: try again at a later login
      const encoded = result.value;
      if (typeof encoded !== 'string' || encoded === '') return;
      // Compare and set: replace only the very user whose password was just checked.
      if (users.get(username) !== user) return;
      users.set(username, user.withEncodedPassword(encoded));
      this.#config.cache?.set(this.#keyer.key(username, password, encoded), true);
      this.#notify(username, encoded);
    } catch (error) {
      this.#warn('a password upgrade failed', error);
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

  /** The dummy hash, encoded once by the configured encoder; a failure is retried later. */
  #dummy(): Promise<string> {
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
    return this.#dummyHash;
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

function isEncodingError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === 'ERR_PASSWORD_ENCODING'
  );
}
