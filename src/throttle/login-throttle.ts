import { ConfigurationError, tooManyRequests } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import { isPromiseLike } from '../lib/promise.js';
import { rejectUnknownOptions } from '../core/validate.js';
import type {
  MaybePromise,
  ThrottleAdmission,
  ThrottleRule,
  ThrottleState,
} from '../stores/types.js';
import {
  LOGIN_THROTTLE_OPTIONS,
  resolveRules,
  type LoginThrottleOptions,
} from './login-throttle-options.js';
import {
  FAILED_OPEN,
  LimiterStore,
  hashedKey,
  secondsUntil,
  type LimitedRequest,
} from './limiter-store.js';

export type { LoginThrottleOptions, LoginThrottleRuleOptions } from './login-throttle-options.js';

/** How a checked credential came out, for {@link LoginAttempt.settle}. */
export type LoginAttemptResult =
  /** The password was right (whatever the account's state): the username's counter is forgotten, the address's attempt taken back. */
  | 'matched'
  /** A wrong password or an unknown user: the attempt stays counted. */
  | 'failed'
  /** The credential was not checked after all (the server was busy): the attempt is taken back. */
  | 'unchecked';

/** A credential check admitted by {@link LoginThrottle.admit}; settle it once it is known how it came out. */
export interface LoginAttempt {
  /** Records the result. Never rejects: a store failure here is published and ignored (the counter stays higher). */
  settle(result: LoginAttemptResult): MaybePromise<void>;
}

interface Counter {
  readonly scope: 'username' | 'address';
  readonly key: string;
  readonly rule: ThrottleRule;
}

const NOTHING_TO_SETTLE: LoginAttempt = Object.freeze({ settle: () => undefined });

/**
 * Slows password guessing: every credential check (HTTP Basic, form login, token
 * login, refresh, OAuth2 callback) is counted per username and per client address.
 * After `max` failures in a window, further attempts are refused **before any
 * hashing** with a {@link TooManyRequestsError} (429 with `Retry-After`, a
 * `throttled` event) for a delay that doubles with each attempt let through after
 * it, up to `maxDelay`: temporary, growing delays, never a permanent lock (that is
 * the repository's `locked` account state, set by the application). A right
 * password forgets the username's counter.
 *
 * Counting is atomic in the store (an attempt is counted when it is admitted, so a
 * concurrent burst cannot slip past the limit), and the same for every username,
 * known or not: a throttled answer tells nothing of who exists. Share one throttle
 * (and one store: `createRedisStores(…).throttle` across instances) between every
 * place that checks credentials.
 *
 * @example
 * ```ts
 * const throttle = new LoginThrottle({ store: stores.throttle, trustedProxies: 1 });
 * const auth = new RepositoryAuthenticator({ users, passwordEncoder, throttle });
 * ```
 */
export class LoginThrottle {
  readonly #store: LimiterStore;
  readonly #username: ThrottleRule | undefined;
  readonly #address: ThrottleRule | undefined;

  constructor(options: LoginThrottleOptions = {}) {
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new ConfigurationError('options', 'must be an object');
    }
    rejectUnknownOptions('LoginThrottle', options, LOGIN_THROTTLE_OPTIONS);
    this.#store = new LimiterStore('login', options);
    const rules = resolveRules(options);
    this.#username = rules.username;
    this.#address = rules.address;
  }

  /**
   * Admits, runs and settles one check: {@link LoginThrottle.admit} (which throws
   * when throttled, before `check` runs), then `check`, then the attempt settled with
   * `resultOf` of its value — or `unchecked` when `check` throws (the error is
   * rethrown). A synchronous store admits and settles without a turn of the event
   * loop.
   *
   * @example
   * ```ts
   * const user = await throttle.guard(username, request, () => verify(username, password),
   *   (found) => (found ? 'matched' : 'failed'));
   * ```
   */
  async guard<T>(
    username: string | undefined,
    request: LimitedRequest | undefined,
    check: () => Promise<T>,
    resultOf: (value: T) => LoginAttemptResult,
  ): Promise<T> {
    const admitted = this.admit(username, request);
    const attempt = isPromiseLike(admitted) ? await admitted : admitted;
    let value: T;
    try {
      value = await check();
    } catch (error) {
      await attempt.settle('unchecked');
      throw error;
    }
    const settled = attempt.settle(resultOf(value));
    if (isPromiseLike(settled)) await settled;
    return value;
  }

  /**
   * A credential naming `username` is about to be checked: counts the attempt, or
   * throws a {@link TooManyRequestsError} when the username or the client's address
   * is throttled (nothing is checked then). Throws an `UnavailableError` when the
   * store cannot answer and the policy is `fail-closed`. Synchronous on a
   * synchronous store.
   */
  admit(username: string | undefined, request?: LimitedRequest): MaybePromise<LoginAttempt> {
    const counters = this.#counters(username, request);
    if (counters.length === 0) return NOTHING_TO_SETTLE;
    const admitted: Counter[] = [];
    const next = (index: number): MaybePromise<LoginAttempt> => {
      for (let i = index; i < counters.length; i++) {
        const counter = counters[i] as Counter;
        const now = this.#store.clock();
        const answer = this.#store.call(
          () => this.#store.store.acquire(counter.key, counter.rule, now),
          request,
        );
        if (isPromiseLike(answer)) {
          return answer.then((a) => {
            this.#admitted(a, counter, admitted, username, request, now);
            return next(i + 1);
          });
        }
        this.#admitted(answer, counter, admitted, username, request, now);
      }
      return this.#attempt(admitted, request);
    };
    return next(0);
  }

  /**
   * A credential naming `username` is already known to be right (a cached
   * verification): throws like {@link LoginThrottle.admit} when the username or
   * address is throttled — a right password must not get through a throttle that a
   * guess would meet. Counts nothing, and resets nothing: only a password checked
   * anew resets the username's counter, else every request of a busy HTTP Basic
   * client would wipe the count of a guesser of its password (with the default
   * one-minute credential cache, a guesser gets at most `max - 1` guesses a minute).
   */
  verified(username: string, request?: LimitedRequest): MaybePromise<void> {
    const counters = this.#counters(username, request);
    const now = this.#store.clock();
    const states = counters.map((counter) =>
      this.#store.call(() => this.#store.store.peek(counter.key, now), request),
    );
    const check = (found: readonly (ThrottleState | null | typeof FAILED_OPEN)[]): void => {
      found.forEach((state, i) => {
        if (state === null || state === FAILED_OPEN || state.blockedUntilMs <= now) return;
        this.#refuse(counters[i] as Counter, state.blockedUntilMs, username, request, now);
      });
    };
    if (states.some(isPromiseLike))
      return Promise.all(states.map(async (state) => state)).then(check);
    check(states as ThrottleState[]);
    return undefined;
  }

  #counters(username: string | undefined, request: LimitedRequest | undefined): Counter[] {
    const counters: Counter[] = [];
    if (this.#address !== undefined) {
      const client = this.#store.addressOf(request);
      if (client !== undefined)
        counters.push({ scope: 'address', key: `login:a:${client.key}`, rule: this.#address });
    }
    if (this.#username !== undefined && username !== undefined) {
      const folded = username.normalize('NFKC').toLowerCase();
      counters.push({
        scope: 'username',
        key: `login:u:${hashedKey(folded)}`,
        rule: this.#username,
      });
    }
    return counters;
  }

  #admitted(
    answer: ThrottleAdmission | typeof FAILED_OPEN,
    counter: Counter,
    admitted: Counter[],
    username: string | undefined,
    request: LimitedRequest | undefined,
    now: number,
  ): void {
    if (answer === FAILED_OPEN) return;
    if (!answer.allowed) {
      // The attempts already admitted on other counters stay counted: it was an attempt.
      this.#refuse(counter, answer.retryAtMs, username, request, now);
    }
    admitted.push(counter);
  }

  #refuse(
    counter: Counter,
    retryAtMs: number,
    username: string | undefined,
    request: LimitedRequest | undefined,
    now: number,
  ): never {
    const retryAfter = secondsUntil(retryAtMs, now);
    const events = this.#store.events;
    if (events.hasListeners) {
      events.publish({
        type: 'throttled',
        limiter: 'login',
        scope: counter.scope,
        username,
        retryAfter,
        request: this.#store.summary(request, this.#store.addressOf(request)?.address),
      });
    }
    throw tooManyRequests('login', counter.scope, retryAfter);
  }

  #attempt(admitted: readonly Counter[], request: LimitedRequest | undefined): LoginAttempt {
    if (admitted.length === 0) return NOTHING_TO_SETTLE;
    let settled = false;
    return {
      settle: (result) => {
        if (settled || result === 'failed') return undefined;
        settled = true;
        const releases = admitted.map((counter) =>
          this.#release(
            counter,
            result === 'matched' && counter.scope === 'username' ? 'reset' : 'refund',
            request,
          ),
        );
        return releases.some(isPromiseLike)
          ? Promise.all(releases.map(async (release) => release)).then(() => undefined)
          : undefined;
      },
    };
  }

  /** Releases a counter; a store failure is published (by the policy's call) and otherwise ignored. */
  #release(
    counter: Counter,
    how: 'reset' | 'refund',
    request: LimitedRequest | undefined,
  ): MaybePromise<void> {
    const now = this.#store.clock();
    try {
      const answer = this.#store.call(
        () => this.#store.store.release(counter.key, how, counter.rule, now),
        request,
      );
      if (isPromiseLike(answer)) return answer.then(ignore, ignore);
    } catch {
      // fail-closed threw: the counter stays higher, which only throttles sooner.
    }
    return undefined;
  }
}

function ignore(): undefined {
  return undefined;
}

/**
 * A `throttle` option: `false` for none, a `LoginThrottle` as given, absent for a new
 * one of the route's own (by address only unless `byUsername`), its events the route's.
 *
 * @internal
 */
export function throttleOption(
  value: unknown,
  events: SecurityEvents | undefined,
  byUsername = false,
): LoginThrottle | undefined {
  if (value === false) return undefined;
  if (value === undefined) {
    return new LoginThrottle({
      ...(events === undefined ? {} : { events }),
      ...(byUsername ? {} : { username: false }),
    });
  }
  if (!(value instanceof LoginThrottle)) {
    throw new ConfigurationError('throttle', 'must be a LoginThrottle or false');
  }
  return value;
}
