import { createHash } from 'node:crypto';
import { StoreUnavailableError } from '../core/errors.js';
import { withDeadline } from '../lib/deadline.js';

/**
 * What portcullis uses of a node-redis client (`createClient()` from `redis`, v6):
 * any connected client satisfies it. Only raw commands are sent (`sendCommand`),
 * so the client's RESP version and type mapping do not matter; `duplicate()` makes
 * the one subscriber connection of the invalidation channel.
 */
export interface RedisClientLike {
  /** Sends one command; `timeout` drops it from the offline queue if it was not sent in time. */
  sendCommand(args: readonly string[], options?: { timeout?: number }): Promise<unknown>;
  /** A new client with the same options (not connected). */
  duplicate(): RedisSubscriberLike;
  /** Adds a listener (`error`). */
  on(event: string, listener: (error: Error) => void): unknown;
  /** Removes a listener. */
  off(event: string, listener: (error: Error) => void): unknown;
}

/** What portcullis uses of the subscriber connection made by `duplicate()`. */
export interface RedisSubscriberLike {
  /** Whether the connection is up and its subscriptions are restored. */
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  subscribe(
    channels: string[],
    listener: (message: string, channel: string) => unknown,
  ): Promise<void>;
  /** Adds a listener (`error`, `ready`, `end`, `reconnecting`). */
  on(event: string, listener: (error: Error) => void): unknown;
  /** Closes the connection at once. */
  destroy(): void;
}

/** Seconds after which a client may retry when Redis is unavailable (`Retry-After`). */
const RETRY_AFTER_SECONDS = 2;

/**
 * The shared part of every Redis store: the app's client, the key prefix, the
 * deadline of each command and the clock. Every failure — no connection (the
 * command sat in node-redis' offline queue), a slow server past the deadline, an
 * error reply such as `OOM` — becomes a {@link StoreUnavailableError}
 * (`store: 'redis'`): the request fails closed with 503, it never hangs and never
 * passes unchecked.
 *
 * @internal
 */
export class RedisConnection {
  readonly client: RedisClientLike;
  readonly prefix: string;
  readonly timeoutMs: number;
  readonly clock: () => number;

  constructor(client: RedisClientLike, prefix: string, timeoutMs: number, clock: () => number) {
    this.client = client;
    this.prefix = prefix;
    this.timeoutMs = timeoutMs;
    this.clock = clock;
  }

  /** Runs one command under the deadline; `operation` names it in the error. */
  command(operation: string, args: readonly string[]): Promise<unknown> {
    return this.#bounded(operation, () =>
      this.client.sendCommand(args, { timeout: this.timeoutMs }),
    );
  }

  /**
   * Runs a Lua script atomically on the server (`EVALSHA`, then `EVAL` when the
   * server does not have it cached yet), under one deadline.
   */
  script(
    operation: string,
    script: LuaScript,
    keys: readonly string[],
    args: readonly string[],
  ): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    return this.#bounded(operation, async () => {
      try {
        return await this.client.sendCommand(['EVALSHA', script.sha1, ...tail], {
          timeout: this.timeoutMs,
        });
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        return this.client.sendCommand(['EVAL', script.source, ...tail], {
          timeout: this.timeoutMs,
        });
      }
    });
  }

  #bounded(operation: string, work: () => Promise<unknown>): Promise<unknown> {
    let started: Promise<unknown>;
    try {
      started = work();
    } catch (error) {
      return Promise.reject(unavailable(operation, error));
    }
    return withDeadline(started, this.timeoutMs, () => unavailable(operation)).catch(
      (error: unknown) => {
        throw error instanceof StoreUnavailableError ? error : unavailable(operation, error);
      },
    );
  }
}

/** A Lua script and its SHA-1 (the `EVALSHA` name; not a security use of SHA-1). @internal */
export interface LuaScript {
  readonly source: string;
  readonly sha1: string;
}

/** Prepares a Lua script for {@link RedisConnection.script}. @internal */
export function luaScript(source: string): LuaScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

/** The error of an unavailable Redis; the cause is kept (it holds no key or secret). @internal */
export function unavailable(operation: string, cause?: unknown): StoreUnavailableError {
  return new StoreUnavailableError(
    'redis',
    operation,
    RETRY_AFTER_SECONDS,
    cause === undefined ? undefined : { cause },
  );
}

/** A reply as a string (node-redis answers strings, or Buffers under a type mapping). @internal */
export function replyString(reply: unknown): string | undefined {
  if (typeof reply === 'string') return reply;
  if (Buffer.isBuffer(reply)) return reply.toString('utf8');
  if (typeof reply === 'number') return String(reply);
  return undefined;
}

/** A reply as a finite number, or `undefined`. @internal */
export function replyNumber(reply: unknown): number | undefined {
  const text = replyString(reply);
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}
