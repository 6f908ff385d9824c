import { describe, expect, it, vi } from 'vitest';
import { MemoryAuthenticator, RepositoryAuthenticator } from '../../src/authentication/index.js';
import { User } from '../../src/core/index.js';
import { basic, Pbkdf2TestEncoder, recordEvents, requestWith, TestEncoder } from './helpers.js';
import { SlowRepository } from './repository-support.js';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

async function elapsed(task: () => unknown): Promise<number> {
  const started = performance.now();
  await task();
  return performance.now() - started;
}

describe('unknown usernames cost what wrong passwords cost', () => {
  it('statistically: medians over interleaved tries are within 35%', async () => {
    const encoder = new Pbkdf2TestEncoder(30_000);
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [new User('alice', await encoder.encode('wonderland'))],
      maxConcurrentVerifications: 1,
      // The hashing itself is measured: a throttle would refuse the guesses after 5.
      throttle: false,
    });
    const wrongPassword = (i: number) => auth.getUser(requestWith(basic('alice', `guess-${i}`)));
    const unknownUser = (i: number) => auth.getUser(requestWith(basic(`user-${i}`, `guess-${i}`)));
    // Warm up: JIT, and the dummy hash is encoded once on the first unknown user.
    for (let i = 0; i < 3; i++) {
      await wrongPassword(i);
      await unknownUser(i);
    }
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 40; i++) {
      if (i % 2 === 0) {
        known.push(await elapsed(() => wrongPassword(i)));
        unknown.push(await elapsed(() => unknownUser(i)));
      } else {
        unknown.push(await elapsed(() => unknownUser(i)));
        known.push(await elapsed(() => wrongPassword(i)));
      }
    }
    const knownMedian = median(known);
    const unknownMedian = median(unknown);
    // A skipped dummy check would make the unknown median ~100× smaller.
    expect(knownMedian).toBeGreaterThan(1);
    expect(Math.abs(unknownMedian - knownMedian) / knownMedian).toBeLessThan(0.35);
  });

  it('deterministically: an unknown user runs matches exactly once, on a hash from the encoder', async () => {
    const encoder = new TestEncoder('{dummy-check}');
    const matches = vi.spyOn(encoder, 'matches');
    const encode = vi.spyOn(encoder, 'encode');
    const { events, received } = recordEvents();
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [new User('alice', encoder.hash('wonderland'))],
      events,
    });
    expect(await auth.getUser(requestWith(basic('mallory', 'wonderland')))).toBeNull();
    expect(matches).toHaveBeenCalledTimes(1);
    expect(matches.mock.calls[0]?.[0]).toBe('wonderland');
    const dummy = matches.mock.calls[0]?.[1];
    expect(dummy).toMatch(/^\{dummy-check\}/u);
    expect(encode).toHaveBeenCalledTimes(1);
    expect(encode.mock.calls[0]?.[0]).not.toBe('wonderland');
    expect(received).toMatchObject([{ type: 'authentication-failure', reason: 'unknown-user' }]);

    // The dummy hash is made once and reused.
    expect(await auth.getUser(requestWith(basic('trudy', 'x')))).toBeNull();
    expect(matches).toHaveBeenCalledTimes(2);
    expect(matches.mock.calls[1]?.[1]).toBe(dummy);
    expect(encode).toHaveBeenCalledTimes(1);
  });

  it('never authenticates an unknown user, even with the dummy hash’s password', async () => {
    const encoder = new TestEncoder();
    encoder.matches = () => Promise.resolve(true); // an encoder that accepts everything
    const auth = new MemoryAuthenticator({ passwordEncoder: encoder, users: [] });
    expect(await auth.getUser(requestWith(basic('mallory', 'anything')))).toBeNull();
  });

  it('makes the dummy hash again when encoding it failed', async () => {
    const encoder = new TestEncoder();
    const encode = vi
      .spyOn(encoder, 'encode')
      .mockRejectedValueOnce(new Error('transient'))
      .mockImplementation((raw) => Promise.resolve(encoder.hash(raw)));
    const matches = vi.spyOn(encoder, 'matches');
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const { events, received } = recordEvents();
      const auth = new MemoryAuthenticator({ passwordEncoder: encoder, events });
      expect(await auth.getUser(requestWith(basic('mallory', 'x')))).toBeNull();
      expect(await auth.getUser(requestWith(basic('mallory', 'x')))).toBeNull();
      expect(encode).toHaveBeenCalledTimes(2);
      expect(matches).toHaveBeenCalledTimes(1);
      expect(
        received.map((e) => (e.type === 'authentication-failure' ? e.reason : e.type)),
      ).toEqual(['unknown-user', 'unknown-user']);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('with a slow repository, unknown usernames still cost what wrong passwords cost', () => {
  it('statistically: medians over interleaved tries are within 35%', async () => {
    const encoder = new Pbkdf2TestEncoder(30_000);
    const users = new SlowRepository([new User('alice', await encoder.encode('wonderland'))], 3);
    const auth = new RepositoryAuthenticator({
      users,
      passwordEncoder: encoder,
      maxConcurrentVerifications: 1,
      throttle: false,
    });
    const wrongPassword = (i: number) => auth.getUser(requestWith(basic('alice', `guess-${i}`)));
    const unknownUser = (i: number) => auth.getUser(requestWith(basic(`user-${i}`, `guess-${i}`)));
    for (let i = 0; i < 3; i++) {
      await wrongPassword(i);
      await unknownUser(i);
    }
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 40; i++) {
      if (i % 2 === 0) {
        known.push(await elapsed(() => wrongPassword(i)));
        unknown.push(await elapsed(() => unknownUser(i)));
      } else {
        unknown.push(await elapsed(() => unknownUser(i)));
        known.push(await elapsed(() => wrongPassword(i)));
      }
    }
    const knownMedian = median(known);
    const unknownMedian = median(unknown);
    // Both pay the repository's wait; a skipped dummy check would leave only that wait.
    expect(knownMedian).toBeGreaterThan(3);
    expect(Math.abs(unknownMedian - knownMedian) / knownMedian).toBeLessThan(0.35);
    expect(users.findCalls).toBe(86);
    expect(encoder.matchesCalls).toBe(86);
  });
});
