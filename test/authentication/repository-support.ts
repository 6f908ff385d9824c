import { setTimeout as sleep } from 'node:timers/promises';
import { RepositoryAuthenticator } from '../../src/authentication/index.js';
import { User } from '../../src/core/index.js';
import type { RepositoryAuthenticatorOptions } from '../../src/authentication/index.js';
import { MemoryUserRepository, type UserRepository } from '../../src/users/index.js';
import { recordEvents, TestEncoder } from './helpers.js';

/**
 * A real repository (users in memory) that answers asynchronously after `delayMs`,
 * like a database across the network, and counts its calls.
 */
export class SlowRepository implements UserRepository {
  readonly inner: MemoryUserRepository;
  delayMs: number;
  findCalls = 0;
  updateCalls = 0;
  /** While set, every call rejects with it (the database is down). */
  failWith: Error | undefined;
  /** While set, every call waits for it first (the database hangs). */
  hold: Promise<void> | undefined;
  /** While set, `updatePassword` waits for it first. */
  holdUpdates: Promise<void> | undefined;

  constructor(users: Iterable<User>, delayMs = 5) {
    this.inner = new MemoryUserRepository(users);
    this.delayMs = delayMs;
  }

  async findByUsername(username: string): Promise<User | null> {
    this.findCalls++;
    await this.#wait();
    return this.inner.findByUsername(username);
  }

  async updatePassword(user: User, encoded: string): Promise<User | null> {
    this.updateCalls++;
    if (this.holdUpdates !== undefined) await this.holdUpdates;
    await this.#wait();
    return this.inner.updatePassword(user, encoded);
  }

  async #wait(): Promise<void> {
    if (this.hold !== undefined) await this.hold;
    if (this.delayMs > 0) await sleep(this.delayMs);
    if (this.failWith !== undefined) throw this.failWith;
  }
}

/** alice (`wonderland`, role USER) behind a slow repository, with a TestEncoder and recorded events. */
export function repositorySetup(
  options: Partial<RepositoryAuthenticatorOptions> = {},
  users?: (encoder: TestEncoder) => User[],
) {
  const encoder = new TestEncoder();
  const { events, received } = recordEvents();
  const initial = users?.(encoder) ?? [
    new User('alice', encoder.hash('wonderland'), ['USER'], ['posts:read']),
  ];
  const repository = new SlowRepository(initial);
  const auth = new RepositoryAuthenticator({
    users: repository,
    passwordEncoder: encoder,
    events,
    ...options,
  });
  return { encoder, events, received, repository, auth };
}
