import { createHash } from 'node:crypto';
import { ConfigurationError, UnavailableError } from '../core/errors.js';
import {
  securityEvents,
  summarize,
  type RequestSummary,
  type SecurityEvents,
} from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import { isPromiseLike } from '../lib/promise.js';
import { callStore, DEFAULT_STORE_TIMEOUT_MS, type StoreCallSite } from '../stores/call.js';
import type { MaybePromise, ThrottleStore } from '../stores/types.js';
import { MemoryThrottleStore } from '../stores/memory-throttle-store.js';
import { ClientAddressResolver, type ClientAddressOptions } from './client-address.js';

/**
 * What a limiter does when its store cannot answer (down, past its deadline):
 * `'fail-closed'` refuses the request (503 with `Retry-After`), `'fail-open'` lets
 * it through uncounted. Either way a `throttle-store-failure` event is published.
 */
export type StoreFailurePolicy = 'fail-closed' | 'fail-open';

/** The options every limiter shares. */
export interface LimiterOptions extends ClientAddressOptions {
  /**
   * Where the counters are kept: a `MemoryThrottleStore` (one process) or
   * `createRedisStores(…).throttle` (every instance).
   * @defaultValue a new `MemoryThrottleStore`
   */
  readonly store?: ThrottleStore;
  /**
   * What happens when the store cannot answer (see {@link StoreFailurePolicy}).
   * @defaultValue `'fail-closed'`
   */
  readonly onStoreFailure?: StoreFailurePolicy;
  /** The deadline of one store call, in milliseconds. @defaultValue `2_000` */
  readonly storeTimeoutMs?: number;
  /** Where the `throttled` and `throttle-store-failure` events go. @defaultValue `securityEvents` */
  readonly events?: SecurityEvents;
  /** The clock, in epoch milliseconds. @defaultValue `Date.now` */
  readonly clock?: () => number;
}

/** The request a limiter reads: its address and headers, and what the events summarize. */
export type LimitedRequest = Pick<
  SecurityRequest,
  'method' | 'rawPath' | 'clientAddress' | 'header'
>;

/** The option names of {@link LimiterOptions}, which every limiter accepts. @internal */
export const LIMITER_OPTIONS: readonly string[] = [
  'store',
  'trustedProxies',
  'forwardedHeader',
  'onStoreFailure',
  'storeTimeoutMs',
  'events',
  'clock',
];

/** The answer of a store call under a limiter's policy: the value, or `FAILED_OPEN`. @internal */
export const FAILED_OPEN: unique symbol = Symbol('portcullis.failedOpen');

/**
 * A limiter's store, called under its deadline and failure policy, with its
 * client-address resolver and its events. @internal
 */
export class LimiterStore {
  readonly store: ThrottleStore;
  readonly clients: ClientAddressResolver;
  readonly events: SecurityEvents;
  readonly clock: () => number;
  readonly #limiter: string;
  readonly #policy: StoreFailurePolicy;
  readonly #site: StoreCallSite;
  /** Failing open since the last answer of the store (warned once). */
  #failingOpen = false;

  constructor(limiter: string, options: LimiterOptions) {
    this.#limiter = limiter;
    this.store = options.store ?? new MemoryThrottleStore();
    if (typeof (this.store as Partial<ThrottleStore>).acquire !== 'function') {
      throw new ConfigurationError(
        'store',
        'must be a ThrottleStore (e.g. new MemoryThrottleStore())',
      );
    }
    const policy: unknown = options.onStoreFailure ?? 'fail-closed';
    if (policy !== 'fail-closed' && policy !== 'fail-open') {
      throw new ConfigurationError('onStoreFailure', "must be 'fail-closed' or 'fail-open'");
    }
    this.#policy = policy;
    const timeoutMs = options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 600_000) {
      throw new ConfigurationError(
        'storeTimeoutMs',
        'must be a whole number of milliseconds from 1 to 600000',
      );
    }
    this.events = options.events ?? securityEvents;
    this.#site = {
      store: 'throttle',
      operation: `throttle:${limiter}`,
      timeoutMs,
      events: this.events,
    };
    const clock = options.clock ?? Date.now;
    if (typeof clock !== 'function') throw new ConfigurationError('clock', 'must be a function');
    this.clock = clock;
    this.clients = new ClientAddressResolver(options);
  }

  /**
   * One store call. Fails as the policy says: `fail-closed` throws the
   * `UnavailableError`, `fail-open` answers {@link FAILED_OPEN}; both publish the event.
   */
  call<T>(
    call: () => MaybePromise<T>,
    request: LimitedRequest | undefined,
  ): MaybePromise<T | typeof FAILED_OPEN> {
    let answer: MaybePromise<T>;
    try {
      answer = callStore(this.#site, call, request);
    } catch (error) {
      return this.#failed(error, request);
    }
    if (!isPromiseLike(answer)) return this.#answered(answer);
    return answer.then(
      (value) => this.#answered(value),
      (error: unknown) => this.#failed(error, request),
    );
  }

  /** A store answer: the store is back, so a later failure to open warns again. */
  #answered<T>(value: T): T {
    if (this.#failingOpen) this.#failingOpen = false;
    return value;
  }

  /** The request's summary for events, with the client address as the limiter resolved it. */
  summary(
    request: LimitedRequest | undefined,
    address: string | undefined,
  ): RequestSummary | undefined {
    return request === undefined ? undefined : { ...summarize(request), clientAddress: address };
  }

  /** The counting key of the request's client (IPv6 by its /64), or `undefined` without an address. */
  addressOf(request: LimitedRequest | undefined): { address: string; key: string } | undefined {
    if (request === undefined) return undefined;
    const found = this.clients.resolveKeyed(request);
    if (found !== undefined) return found;
    // Not an IP address (a Unix socket, an adapter's own label): counted as it is.
    const raw = request.clientAddress;
    return raw === undefined ? undefined : { address: raw, key: raw };
  }

  #failed(error: unknown, request: LimitedRequest | undefined): typeof FAILED_OPEN {
    const code = (error as { code?: unknown } | null)?.code;
    if (this.events.hasListeners) {
      this.events.publish({
        type: 'throttle-store-failure',
        limiter: this.#limiter,
        policy: this.#policy,
        error: typeof code === 'string' ? code : 'ERR_STORE_UNAVAILABLE',
        request: request === undefined ? undefined : summarize(request),
      });
    }
    if (this.#policy === 'fail-open') {
      // Never silently: a limiter that lets requests through uncounted says so, once
      // per outage, even when nobody listens to the events.
      if (!this.#failingOpen) {
        this.#failingOpen = true;
        process.emitWarning(
          `portcullis: the throttle store of ${this.#limiter} failed (${typeof code === 'string' ? code : 'ERR_STORE_UNAVAILABLE'}); requests pass uncounted until it answers again (onStoreFailure: 'fail-open')`,
          { code: 'PORTCULLIS_THROTTLE_FAIL_OPEN' },
        );
      }
      return FAILED_OPEN;
    }
    throw error instanceof UnavailableError
      ? error
      : new UnavailableError('The throttle store is unavailable', 1, { cause: error });
  }
}

/** A bounded, opaque key part for a value the client chose (a username, a custom key): SHA-256, base64url, 128 bits. @internal */
export function hashedKey(value: string): string {
  const known = hashes.get(value);
  if (known !== undefined) return known;
  const hash = createHash('sha256').update(value, 'utf8').digest('base64url').slice(0, 22);
  // The same users come back request after request: each is hashed once (a bounded memo).
  if (hashes.size >= HASH_MEMO_SIZE) hashes.clear();
  if (value.length <= 256) hashes.set(value, hash);
  return hash;
}

const HASH_MEMO_SIZE = 4096;
const hashes = new Map<string, string>();

/** Seconds from `nowMs` until `atMs`, at least 1. @internal */
export function secondsUntil(atMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((atMs - nowMs) / 1_000));
}
