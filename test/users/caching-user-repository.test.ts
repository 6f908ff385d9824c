import { describe, expect, it } from 'vitest';
import { MemoryUserChangeNotifier, User } from '../../src/index.js';
import type { UserChangeListener, UserChangeNotifier } from '../../src/stores/types.js';
import { CachingUserRepository } from '../../src/users/caching-user-repository.js';
import { MemoryUserRepository, type UserRepository } from '../../src/users/index.js';

/** The database: a memory repository answering asynchronously, counting lookups. */
class Database implements UserRepository {
  readonly inner = new MemoryUserRepository([new User('alice', '{test}a', ['USER'])]);
  finds = 0;
  gate: Promise<void> = Promise.resolve();

  async findByUsername(username: string): Promise<User | null> {
    this.finds++;
    await this.gate;
    return this.inner.findByUsername(username);
  }
}

/** A notifier whose channel can be taken down, as the Redis one. */
class Channel implements UserChangeNotifier {
  readonly #memory = new MemoryUserChangeNotifier();
  readonly #resets = new Set<() => void>();
  listening = true;

  publish(username: string): void {
    this.#memory.publish(username);
  }

  subscribe(listener: UserChangeListener): () => void {
    return this.#memory.subscribe(listener);
  }

  onReset(reset: () => void): () => void {
    this.#resets.add(reset);
    return () => this.#resets.delete(reset);
  }

  down(): void {
    this.listening = false;
    for (const reset of this.#resets) reset();
  }
}

describe('CachingUserRepository', () => {
  it('a second lookup is answered synchronously from the cache', async () => {
    const db = new Database();
    const cached = new CachingUserRepository(db, { userChanges: new MemoryUserChangeNotifier() });
    expect((await cached.findByUsername('alice'))?.username).toBe('alice');
    const again = cached.findByUsername('alice');
    expect(again).toBeInstanceOf(User); // not a promise
    expect(db.finds).toBe(1);
  });

  it('an announced change drops the user on every instance sharing the notifier', async () => {
    const db = new Database();
    const userChanges = new MemoryUserChangeNotifier();
    const a = new CachingUserRepository(db, { userChanges });
    const b = new CachingUserRepository(db, { userChanges });
    await a.findByUsername('alice');
    await b.findByUsername('alice');
    db.inner.updateUser(
      (db.inner.findByUsername('alice') as User).withAccountState({ locked: true }),
    );
    expect((b.findByUsername('alice') as User).locked).toBe(false); // not told yet: cached
    userChanges.publish('alice');
    expect((await b.findByUsername('alice'))?.locked).toBe(true);
    expect((await a.findByUsername('alice'))?.locked).toBe(true);
  });

  it('a lookup in flight when a change is announced is not cached', async () => {
    const db = new Database();
    const userChanges = new MemoryUserChangeNotifier();
    const cached = new CachingUserRepository(db, { userChanges });
    let open!: () => void;
    db.gate = new Promise((resolve) => (open = resolve));
    const pending = cached.findByUsername('alice');
    userChanges.publish('alice');
    open();
    await pending;
    db.gate = Promise.resolve();
    expect(cached.findByUsername('alice')).toBeInstanceOf(Promise); // asked again
    expect(cached.size).toBe(0);
  });

  it('unknown usernames are never cached (a sign-up is seen at once)', async () => {
    const db = new Database();
    const cached = new CachingUserRepository(db, { userChanges: new MemoryUserChangeNotifier() });
    expect(await cached.findByUsername('bob')).toBeNull();
    db.inner.createUser(new User('bob', '{test}b'));
    expect((await cached.findByUsername('bob'))?.username).toBe('bob');
  });

  it('while the channel is down the cache neither answers nor fills, and it is emptied', async () => {
    const db = new Database();
    const channel = new Channel();
    const cached = new CachingUserRepository(db, { userChanges: channel });
    await cached.findByUsername('alice');
    channel.down();
    expect(cached.size).toBe(0);
    // A change nobody could announce:
    db.inner.updateUser(
      (db.inner.findByUsername('alice') as User).withAccountState({ enabled: false }),
    );
    expect((await cached.findByUsername('alice'))?.enabled).toBe(false);
    expect(cached.size).toBe(0);
    expect(db.finds).toBe(2);
  });

  it('an entry never outlives ttlMs', async () => {
    const db = new Database();
    const cached = new CachingUserRepository(db, {
      userChanges: new MemoryUserChangeNotifier(),
      ttlMs: 5,
    });
    await cached.findByUsername('alice');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await cached.findByUsername('alice');
    expect(db.finds).toBe(2);
  });

  it('updatePassword goes to the repository and drops the user; close() stops listening', async () => {
    const userChanges = new MemoryUserChangeNotifier();
    const inner = new MemoryUserRepository([new User('alice', '{test}a')]);
    const cached = new CachingUserRepository(inner, { userChanges });
    const alice = cached.findByUsername('alice') as User;
    const updated = await cached.updatePassword(alice, '{test}b');
    expect(updated?.password).toBe('{test}b');
    expect((cached.findByUsername('alice') as User).password).toBe('{test}b');
    cached.close();
    inner.changePassword('alice', '{test}c');
    userChanges.publish('alice');
    expect((cached.findByUsername('alice') as User).password).toBe('{test}b'); // no longer told
  });

  it('refuses a misconfiguration at once', () => {
    const db = new Database();
    expect(
      () => new CachingUserRepository({} as never, { userChanges: new MemoryUserChangeNotifier() }),
    ).toThrow(expect.objectContaining({ option: 'repository' }));
    expect(() => new CachingUserRepository(db, {} as never)).toThrow(
      expect.objectContaining({ option: 'userChanges' }),
    );
    expect(
      () =>
        new CachingUserRepository(db, { userChanges: new MemoryUserChangeNotifier(), ttlMs: 0 }),
    ).toThrow(expect.objectContaining({ option: 'ttlMs' }));
    expect(
      () =>
        new CachingUserRepository(db, {
          userChanges: new MemoryUserChangeNotifier(),
          ttl: 5,
        } as never),
    ).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTION' }));
  });
});
