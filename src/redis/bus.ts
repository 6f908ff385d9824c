import { randomBytes } from 'node:crypto';
import { replyNumber, type RedisConnection, type RedisSubscriberLike } from './connection.js';

/** A handler of one kind of message on the bus; `payload` is what was broadcast. @internal */
export type BusHandler = (payload: string) => void;

/**
 * The channel through which instances tell each other what changed (a revocation:
 * drop that cached answer; a user changed: drop that user's cached credentials).
 * One dedicated subscriber connection (`client.duplicate()`, node-redis restores its
 * subscriptions on reconnection) listens on `<prefix>bus` and on this instance's
 * own acknowledgement channel.
 *
 * A broadcast applies locally at once, is published, and waits until every other
 * subscribed instance has acknowledged it (each acknowledges after applying it) or
 * `ackTimeoutMs` passed: so when a revocation returns, every live instance has
 * already dropped its cached answer. An instance that did not answer in time is
 * still bounded by the cache's maximum staleness.
 *
 * While the subscriber is not connected, {@link InvalidationBus.ready} is false and
 * the reset listeners run (the caches drop everything): no cached answer is used
 * without a live invalidation channel.
 *
 * @internal
 */
export class InvalidationBus {
  readonly #redis: RedisConnection;
  readonly #channel: string;
  readonly #id = randomBytes(12).toString('base64url');
  readonly #ackTimeoutMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #handlers = new Map<string, Set<BusHandler>>();
  readonly #resets = new Set<() => void>();
  readonly #pending = new Map<string, { received: number; expected: number; done: () => void }>();
  #subscriber: RedisSubscriberLike | undefined;
  #subscribed = false;
  #ready = false;
  #generation = 0;
  #closed = false;
  #readyWaiters: (() => void)[] = [];

  constructor(redis: RedisConnection, ackTimeoutMs: number, onError: (error: unknown) => void) {
    this.#redis = redis;
    this.#channel = `${redis.prefix}bus`;
    this.#ackTimeoutMs = ackTimeoutMs;
    this.#onError = onError;
  }

  /** Whether the invalidation channel is live: only then may answers be cached. */
  get ready(): boolean {
    return this.#ready;
  }

  /**
   * Changes on every message received and every connection change: an answer read
   * from Redis is cached only if the generation did not change while it was read.
   */
  get generation(): number {
    return this.#generation;
  }

  /** Connects the subscriber (in the background; retried until {@link close}). */
  start(): void {
    if (this.#closed || this.#subscriber !== undefined) return;
    const subscriber = this.#redis.client.duplicate();
    this.#subscriber = subscriber;
    subscriber.on('error', (error: unknown) => {
      this.#down();
      this.#onError(error);
    });
    subscriber.on('reconnecting', () => {
      this.#down();
    });
    subscriber.on('end', () => {
      this.#down();
      // The client gave up reconnecting (its reconnectStrategy said so): start over.
      this.#restart(subscriber);
    });
    subscriber.on('ready', () => {
      if (this.#subscribed) this.#up();
    });
    const ackChannel = this.#ackChannel(this.#id);
    subscriber
      .connect()
      .then(() =>
        subscriber.subscribe([this.#channel, ackChannel], (message, channel) => {
          if (channel === ackChannel) this.#acknowledged(message);
          else this.#received(message);
        }),
      )
      .then(
        () => {
          this.#subscribed = true;
          if (subscriber.isReady) this.#up();
        },
        (error: unknown) => {
          this.#onError(error);
          this.#restart(subscriber);
        },
      );
  }

  /** Resolves once the channel is live, or after `timeoutMs` (then `false`). */
  whenReady(timeoutMs: number): Promise<boolean> {
    if (this.#ready) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        resolve(false);
      }, timeoutMs);
      this.#readyWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** Calls `handler` for every message of `kind` from another instance or this one. */
  on(kind: string, handler: BusHandler): () => void {
    let set = this.#handlers.get(kind);
    if (set === undefined) this.#handlers.set(kind, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Calls `reset` whenever the channel goes down (the caches drop everything); returns the unsubscribe. */
  onReset(reset: () => void): () => void {
    this.#resets.add(reset);
    return () => {
      this.#resets.delete(reset);
    };
  }

  /**
   * Applies `payload` here, publishes it to every instance and waits for their
   * acknowledgements (at most `ackTimeoutMs`). Throws `StoreUnavailableError` when
   * the publication fails.
   */
  async broadcast(operation: string, kind: string, payload: string): Promise<void> {
    this.#apply(kind, payload);
    const nonce = randomBytes(9).toString('base64url');
    let done!: () => void;
    const acknowledged = new Promise<void>((resolve) => (done = resolve));
    const pending = { received: 0, expected: Number.POSITIVE_INFINITY, done };
    this.#pending.set(nonce, pending);
    try {
      const message = `${kind} ${this.#id} ${nonce} ${payload}`;
      const receivers = await this.#redis.command(operation, ['PUBLISH', this.#channel, message]);
      // This instance's own subscriber acknowledges itself (see #received).
      pending.expected = replyNumber(receivers) ?? 0;
      if (pending.received >= pending.expected) done();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        acknowledged,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#ackTimeoutMs))),
      ]);
      clearTimeout(timer);
    } finally {
      this.#pending.delete(nonce);
    }
  }

  /** Stops listening; the caches are dropped. */
  close(): void {
    this.#closed = true;
    this.#down();
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    subscriber?.destroy();
  }

  /** Drops `subscriber` and makes a new one a second later (unless closed). */
  #restart(subscriber: RedisSubscriberLike): void {
    if (this.#subscriber !== subscriber) return;
    this.#subscriber = undefined;
    this.#subscribed = false;
    try {
      subscriber.destroy();
    } catch {
      // Already closed.
    }
    if (this.#closed) return;
    setTimeout(() => {
      this.start();
    }, 1_000).unref();
  }

  #received(message: string): void {
    const [kind, origin, nonce] = message.split(' ', 3);
    if (kind === undefined || origin === undefined || nonce === undefined) return;
    const payload = message.slice(kind.length + origin.length + nonce.length + 3);
    if (origin === this.#id) {
      // Applied when broadcast; counts as this instance's acknowledgement.
      this.#acknowledged(nonce);
      return;
    }
    this.#apply(kind, payload);
    if (/^[\w-]{1,64}$/u.test(origin)) {
      this.#redis
        .command('invalidation-ack', ['PUBLISH', this.#ackChannel(origin), nonce])
        .catch(this.#onError);
    }
  }

  #apply(kind: string, payload: string): void {
    this.#generation++;
    for (const handler of this.#handlers.get(kind) ?? []) {
      try {
        handler(payload);
      } catch (error) {
        this.#onError(error);
      }
    }
  }

  #acknowledged(nonce: string): void {
    const pending = this.#pending.get(nonce);
    if (pending === undefined) return;
    pending.received++;
    if (pending.received >= pending.expected) pending.done();
  }

  #ackChannel(instance: string): string {
    return `${this.#redis.prefix}bus:ack:${instance}`;
  }

  #up(): void {
    if (this.#closed || this.#ready) return;
    this.#generation++;
    this.#ready = true;
    const waiters = this.#readyWaiters;
    this.#readyWaiters = [];
    for (const waiter of waiters) waiter();
  }

  #down(): void {
    this.#generation++;
    if (!this.#ready) return;
    this.#ready = false;
    for (const reset of this.#resets) reset();
  }
}
