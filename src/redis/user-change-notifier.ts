import type { UserChangeListener, UserChangeNotifier } from '../stores/types.js';
import type { InvalidationBus } from './bus.js';

/** The bus message kind of a user change; its payload is the username (UTF-16, lossless), base64url. */
const USER_CHANGED = 'user';

/**
 * The {@link UserChangeNotifier} on Redis (`portcullis/redis`): a change announced on
 * one instance (a new password, a lock, new roles) reaches every instance through
 * the invalidation channel (pub/sub on `<prefix>bus`, one dedicated subscriber
 * connection). `publish` calls this instance's listeners at once and returns once
 * every other live instance has acknowledged (or after the acknowledgement
 * timeout), so a password changed through one instance is refused by the others
 * from then on. While the channel is down, `listening` is `false` (caches of user
 * data must not be used) and the reset listeners run when it goes down. Failures of
 * the publication throw `StoreUnavailableError`. Made by
 * {@link createRedisStores}.
 */
export class RedisUserChangeNotifier implements UserChangeNotifier {
  readonly #bus: InvalidationBus;
  readonly #onError: (error: unknown) => void;

  /** @internal Made by {@link createRedisStores}. */
  constructor(bus: InvalidationBus, onError: (error: unknown) => void) {
    this.#bus = bus;
    this.#onError = onError;
  }

  publish(username: string): Promise<void> {
    return this.#bus.broadcast(
      'user-change',
      USER_CHANGED,
      Buffer.from(username, 'utf16le').toString('base64url'),
    );
  }

  /** Whether the invalidation channel is live: while it is not, changes of other instances go unheard. */
  get listening(): boolean {
    return this.#bus.ready;
  }

  /** Calls `reset` whenever the channel goes down: changes may have been missed. */
  onReset(reset: () => void): () => void {
    return this.#bus.onReset(reset);
  }

  subscribe(listener: UserChangeListener): () => void {
    return this.#bus.on(USER_CHANGED, (payload) => {
      const username = Buffer.from(payload, 'base64url').toString('utf16le');
      try {
        listener(username);
      } catch (error) {
        this.#onError(error);
      }
    });
  }
}
