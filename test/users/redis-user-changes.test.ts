// Two instances of an app, each its own RepositoryAuthenticator (own credential cache)
// and its own Redis connections, over one user store and one real redis-server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryAuthenticator } from '../../src/authentication/index.js';
import { User } from '../../src/index.js';
import { MemoryUserRepository, type UserRepository } from '../../src/users/index.js';
import { basic, requestWith, TestEncoder } from '../authentication/helpers.js';
import { closeAll, instance, observer, type Instance } from '../redis/instances.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';

let redis: TestRedis;
let one: Instance;
let two: Instance;

beforeAll(async () => {
  redis = await startRedis();
  [one, two] = await Promise.all([
    instance(redis.url, { prefix: 'users-test:' }),
    instance(redis.url, { prefix: 'users-test:' }),
  ]);
});

afterAll(async () => {
  closeAll(one, two);
  await redis.stop();
});

/** The shared database, counting lookups. */
class CountingRepository implements UserRepository {
  readonly inner: MemoryUserRepository;
  finds = 0;

  constructor(users: User[]) {
    this.inner = new MemoryUserRepository(users);
  }

  findByUsername(username: string): Promise<User | null> {
    this.finds++;
    return Promise.resolve(this.inner.findByUsername(username));
  }

  updatePassword(user: User, encoded: string): Promise<User | null> {
    return Promise.resolve(this.inner.updatePassword(user, encoded));
  }
}

function setup() {
  const encoder = new TestEncoder();
  const users = new CountingRepository([new User('alice', encoder.hash('wonderland'), ['USER'])]);
  const a = new RepositoryAuthenticator({
    users,
    passwordEncoder: encoder,
    userChanges: one.stores.userChanges,
  });
  const b = new RepositoryAuthenticator({
    users,
    passwordEncoder: encoder,
    userChanges: two.stores.userChanges,
  });
  const login = async (auth: RepositoryAuthenticator, password: string) =>
    auth.attempt(requestWith(basic('alice', password)));
  const close = () => {
    a.close();
    b.close();
  };
  return { encoder, users, a, b, login, close };
}

describe('user changes across instances through Redis', () => {
  it('a user locked through A is refused by B as soon as userChanged returns', async () => {
    const { users, a, b, login, close } = setup();
    expect(await login(a, 'wonderland')).toMatchObject({ kind: 'authenticated' });
    expect(await login(b, 'wonderland')).toMatchObject({ kind: 'authenticated' });
    const alice = users.inner.findByUsername('alice') as User;
    users.inner.updateUser(alice.withAccountState({ locked: true }));
    // B still answers from its cache: nothing has told it yet.
    expect(await login(b, 'wonderland')).toMatchObject({ kind: 'authenticated' });
    await a.userChanged('alice');
    expect(await login(b, 'wonderland')).toMatchObject({
      kind: 'failed',
      reason: 'account-locked',
    });
    close();
  });

  it('a password changed through A stops the old password on B at once', async () => {
    const { encoder, users, a, b, login, close } = setup();
    expect(await login(b, 'wonderland')).toMatchObject({ kind: 'authenticated' });
    users.inner.changePassword('alice', encoder.hash('looking-glass'));
    await a.userChanged('alice');
    expect(await login(b, 'wonderland')).toMatchObject({ reason: 'bad-credentials' });
    expect(await login(b, 'looking-glass')).toMatchObject({ kind: 'authenticated' });
    close();
  });

  it('a password upgrade on A is announced: B drops its entry and looks the user up again', async () => {
    const { encoder, users, a, b, login, close } = setup();
    expect(await login(b, 'wonderland')).toMatchObject({ kind: 'authenticated' }); // cached on B
    encoder.upgrade = (encoded) => encoded.startsWith('{test}fixed$');
    const findsBefore = users.finds;
    expect(await login(a, 'wonderland')).toMatchObject({ kind: 'authenticated' }); // upgrades
    await expect
      .poll(async () => {
        await login(b, 'wonderland');
        return users.finds;
      })
      .toBeGreaterThan(findsBefore + 1);
    expect(users.inner.findByUsername('alice')?.password).not.toBe(encoder.hash('wonderland'));
    close();
  });

  it('a change whose announcement was lost while B’s channel was down is not answered from B’s cache', async () => {
    const { encoder, users, b, login, close } = setup();
    expect(await login(b, 'wonderland')).toMatchObject({ kind: 'authenticated' }); // cached on B
    let resets = 0;
    const stop = two.stores.userChanges.onReset(() => {
      resets++;
    });
    // Cut every subscriber connection (Redis itself stays up): announcements made now are lost.
    const admin = await observer(redis.url);
    await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    await admin.close();
    await expect.poll(() => resets > 0 || !two.stores.userChanges.listening).toBe(true);
    // Changed with no announcement that could reach B.
    users.inner.changePassword('alice', encoder.hash('looking-glass'));
    const findsBefore = users.finds;
    expect(await login(b, 'wonderland')).toMatchObject({ reason: 'bad-credentials' });
    expect(users.finds).toBe(findsBefore + 1); // asked the repository, not the cache
    stop();
    await two.stores.ready(5_000);
    close();
  });
});
