import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError, tooManyRequests } from '../core/errors.js';
import { isPromiseLike } from '../lib/promise.js';
import { rejectUnknownOptions, requireInteger } from '../core/validate.js';
import type { MaybePromise, WindowCount } from '../stores/types.js';
import { durationMs, type Duration } from './duration.js';
import {
  FAILED_OPEN,
  LIMITER_OPTIONS,
  LimiterStore,
  hashedKey,
  secondsUntil,
  type LimitedRequest,
  type LimiterOptions,
} from './limiter-store.js';

/** Who a rate limit counts a request against; see {@link RateLimitOptions.by}. */
export type RateLimitKey =
  'user' | 'address' | ((subject: RateLimitSubject) => string | null | undefined);

/** What a rate limit is asked to count: the request (when there is one), its user, and custom fields. */
export interface RateLimitSubject {
  /** The request, for the client address and headers; absent in a call without one (a tRPC caller). */
  readonly request?: LimitedRequest | undefined;
  /** The authenticated user, or `null` for an anonymous request. */
  readonly user: AuthenticatedUser | null;
}

/** Options of {@link rateLimit}. */
export interface RateLimitOptions extends LimiterOptions {
  /**
   * The name of the limit, in its counters' keys, events and errors. Limits with the
   * same name share their counters (on every instance, with a shared store).
   * @defaultValue made of `window`, `max` and `by` (`rate:60000:100:user`): name
   *   limits whose options are alike but must count apart
   */
  readonly name?: string;
  /** The fixed window the requests are counted in, e.g. `'1m'`. */
  readonly window: Duration;
  /** The requests let through per key in a window; the next ones get 429 until it ends. */
  readonly max: number;
  /**
   * The key requests are counted under: `'user'` (the username; the client
   * address for an anonymous request), `'address'` (the client address, IPv6 by its
   * /64, see `trustedProxies`), or a function answering a key (`null` or
   * `undefined`: the request is not counted).
   * @defaultValue `'user'`
   */
  readonly by?: RateLimitKey;
}

/** What a counted request left of its limit. */
export interface RateLimitState {
  readonly limit: number;
  /** Requests left in the window. */
  readonly remaining: number;
  /** Seconds until the window ends. */
  readonly resetAfter: number;
}

const OPTIONS = ['name', 'window', 'max', 'by', ...LIMITER_OPTIONS];
const NAME = /^[A-Za-z0-9._-]{1,64}$/u;

/**
 * A request rate limit: at most `max` requests per key in each fixed `window`,
 * counted atomically in the store (memory by default, Redis across instances). The
 * request past the limit is refused with a {@link TooManyRequestsError}: HTTP 429
 * with `Retry-After` on a URL rule, tRPC `TOO_MANY_REQUESTS`, a GraphQL error with
 * `extensions.code` `TOO_MANY_REQUESTS`; a `throttled` event is published. Use it on
 * URL rules (`requestMatcher().rateLimit(pattern, limit)`), tRPC procedures and
 * GraphQL fields.
 *
 * @example
 * ```ts
 * const search = rateLimit({ name: 'search', window: '1m', max: 100, by: 'user', store: stores.throttle });
 * ```
 */
export class RateLimit {
  /** The limit's name. */
  readonly name: string;
  /** The requests let through per key in a window. */
  readonly max: number;
  /** The window, in milliseconds. */
  readonly windowMs: number;
  readonly #by: RateLimitKey;
  readonly #store: LimiterStore;

  constructor(options: RateLimitOptions) {
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new ConfigurationError('options', 'must be an object');
    }
    rejectUnknownOptions('rateLimit', options, OPTIONS);
    this.windowMs = durationMs('window', options.window);
    this.max = requireInteger('max', options.max, 1, 1_000_000_000);
    const by = options.by ?? 'user';
    if (by !== 'user' && by !== 'address' && typeof by !== 'function') {
      throw new ConfigurationError('by', "must be 'user', 'address' or a function answering a key");
    }
    this.#by = by;
    const name =
      options.name ??
      `rate:${this.windowMs}:${this.max}:${typeof by === 'function' ? 'custom' : by}`;
    if (options.name !== undefined && (typeof name !== 'string' || !NAME.test(name))) {
      throw new ConfigurationError(
        'name',
        'must be 1 to 64 letters, digits, dots, dashes or underscores',
      );
    }
    this.name = name;
    this.#store = new LimiterStore(name, options);
  }

  /**
   * Counts one request against the limit: answers what is left, or throws a
   * {@link TooManyRequestsError} past the limit (or an `UnavailableError` when the
   * store cannot answer and the policy is `fail-closed`). A request without a key (no
   * address, a custom key answering nothing) is not counted and answers `undefined`.
   * Synchronous on a synchronous store.
   */
  consume(subject: RateLimitSubject): MaybePromise<RateLimitState | undefined> {
    const counted = this.#key(subject);
    if (counted === undefined) return undefined;
    const now = this.#store.clock();
    const { request } = subject;
    const answer = this.#store.call(
      () => this.#store.store.hit(counted.key, this.windowMs, now),
      request,
    );
    return isPromiseLike(answer)
      ? answer.then((found) => this.#decide(found, counted, subject, now))
      : this.#decide(answer, counted, subject, now);
  }

  #key(subject: RateLimitSubject): { key: string; scope: string; address?: string } | undefined {
    const by = this.#by;
    if (typeof by === 'function') {
      const key: unknown = by(subject);
      if (key === null || key === undefined) return undefined;
      if (typeof key !== 'string')
        throw new TypeError(`rate limit ${this.name}: by() must answer a string`);
      return { key: `rate:${this.name}:k:${hashedKey(key)}`, scope: 'key' };
    }
    if (by === 'user' && subject.user !== null) {
      return { key: `rate:${this.name}:u:${hashedKey(subject.user.username)}`, scope: 'user' };
    }
    const client = this.#store.addressOf(subject.request);
    if (client === undefined) return undefined;
    return { key: `rate:${this.name}:a:${client.key}`, scope: 'address', address: client.address };
  }

  #decide(
    found: WindowCount | typeof FAILED_OPEN,
    counted: { key: string; scope: string; address?: string },
    subject: RateLimitSubject,
    now: number,
  ): RateLimitState | undefined {
    if (found === FAILED_OPEN) return undefined;
    const resetAfter = secondsUntil(found.resetAtMs, now);
    if (found.count <= this.max) {
      return { limit: this.max, remaining: this.max - found.count, resetAfter };
    }
    const events = this.#store.events;
    if (events.hasListeners) {
      events.publish({
        type: 'throttled',
        limiter: this.name,
        scope: counted.scope,
        username: subject.user?.username,
        retryAfter: resetAfter,
        request: this.#store.summary(
          subject.request,
          counted.address ?? this.#store.addressOf(subject.request)?.address,
        ),
      });
    }
    throw tooManyRequests(this.name, counted.scope, resetAfter);
  }
}

/**
 * A {@link RateLimit}: `rateLimit({ window: '1m', max: 100, by: 'user' })`.
 *
 * @example
 * ```ts
 * AuthorizationManager.requestMatcher()
 *   .rateLimit('/api/**', rateLimit({ name: 'api', window: '1m', max: 100 }))
 *   .anyRequest(Access.authenticated());
 * ```
 */
export function rateLimit(options: RateLimitOptions): RateLimit {
  return new RateLimit(options);
}
