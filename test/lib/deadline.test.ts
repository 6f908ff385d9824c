import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { maybeWithDeadline, withDeadline } from '../../src/lib/deadline.js';
import {
  DeadlineExceededError,
  PortcullisError,
  UnavailableError,
  DEFAULT_DEADLINES,
} from '../../src/index.js';

const timeout = () => new DeadlineExceededError('test', 100);

describe('withDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('rejects with the made error when the work does not settle in time', async () => {
    const result = withDeadline(new Promise<never>(() => undefined), 100, timeout);
    const assertion = expect(result).rejects.toMatchObject({ code: 'ERR_DEADLINE_EXCEEDED' });
    await vi.advanceTimersByTimeAsync(100);
    await assertion;
    expect(vi.getTimerCount()).toBe(0);
  });

  it('settles as the work does and clears its timer', async () => {
    await expect(withDeadline(Promise.resolve(7), 100, timeout)).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('x')), 100, timeout)).rejects.toThrow('x');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('absorbs a rejection of the work after the deadline (no unhandled rejection)', async () => {
    let reject!: (error: Error) => void;
    const late = new Promise<never>((_resolve, r) => {
      reject = r;
    });
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const result = withDeadline(late, 100, timeout);
      const assertion = expect(result).rejects.toBeInstanceOf(DeadlineExceededError);
      await vi.advanceTimersByTimeAsync(100);
      await assertion;
      reject(new Error('late'));
      await vi.advanceTimersByTimeAsync(0);
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it('still rejects when the error factory throws', async () => {
    const result = withDeadline(new Promise<never>(() => undefined), 10, () => {
      throw new Error('factory');
    });
    const assertion = expect(result).rejects.toThrow('factory');
    await vi.advanceTimersByTimeAsync(10);
    await assertion;
  });

  it('maybeWithDeadline keeps a plain value synchronous, without a timer', () => {
    expect(maybeWithDeadline(3, 100, timeout)).toBe(3);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('UnavailableError and DeadlineExceededError', () => {
  it('are one family with stable codes and a Retry-After in seconds', () => {
    const down = new UnavailableError();
    expect(down).toBeInstanceOf(PortcullisError);
    expect(down.code).toBe('ERR_UNAVAILABLE');
    expect(down.retryAfter).toBe(5);
    const late = new DeadlineExceededError('password-encoder', 5_000);
    expect(late).toBeInstanceOf(UnavailableError);
    expect(late).toMatchObject({
      name: 'DeadlineExceededError',
      code: 'ERR_DEADLINE_EXCEEDED',
      operation: 'password-encoder',
      timeoutMs: 5_000,
      retryAfter: 5,
      message: 'password-encoder did not answer within 5000 ms',
    });
  });

  it('has defaults a few seconds long, each component shorter than the whole pipeline', () => {
    expect(DEFAULT_DEADLINES.passwordEncoderMs).toBeLessThan(DEFAULT_DEADLINES.authenticationMs);
    expect(DEFAULT_DEADLINES.loadUserMs).toBeLessThan(DEFAULT_DEADLINES.authenticationMs);
    expect(DEFAULT_DEADLINES.expressionFunctionMs).toBeLessThan(DEFAULT_DEADLINES.authorizationMs);
  });
});
