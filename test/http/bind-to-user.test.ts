import { describe, expect, it } from 'vitest';
import { AuthenticatedUser, SecurityContext, User } from '../../src/index.js';
import { bindToUser } from '../../src/http/bind-to-user.js';

const alice = AuthenticatedUser.from(new User('alice', ''));
const current = () => SecurityContext.getUser()?.username ?? 'none';

async function* stream(log: string[]): AsyncGenerator<string, void, unknown> {
  try {
    log.push(`start ${current()}`);
    yield 'a';
    await Promise.resolve();
    yield 'b';
  } catch (error) {
    log.push(`caught ${(error as Error).message} ${current()}`);
  } finally {
    log.push(`finally ${current()}`);
  }
}

describe('bindToUser (a subscription stream in the SecurityContext)', () => {
  const bound = (log: string[]) =>
    (bindToUser(stream(log), alice) as AsyncIterable<string>)[Symbol.asyncIterator]();

  it('runs next() in the user context, called from outside it', async () => {
    const log: string[] = [];
    const iterator = bound(log);
    expect(await iterator.next()).toEqual({ value: 'a', done: false });
    expect(await iterator.next()).toEqual({ value: 'b', done: false });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    expect(log).toEqual(['start alice', 'finally alice']);
  });

  it('runs return() and throw() in the user context when stopped at a yield', async () => {
    const stoppedLog: string[] = [];
    const stopped = bound(stoppedLog);
    await stopped.next();
    expect(await stopped.return?.(undefined)).toEqual({ value: undefined, done: true });
    expect(stoppedLog).toEqual(['start alice', 'finally alice']);

    const failedLog: string[] = [];
    const failed = bound(failedLog);
    await failed.next();
    await failed.throw?.(new Error('abort'));
    expect(failedLog).toEqual(['start alice', 'caught abort alice', 'finally alice']);
  });

  it('leaves other values alone', () => {
    const value = { data: 1 };
    expect(bindToUser(value, alice)).toBe(value);
    expect(bindToUser(null, alice)).toBeNull();
  });
});
