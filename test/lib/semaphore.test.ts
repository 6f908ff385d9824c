import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../src/lib/semaphore.js';
import { flush, gate } from '../authentication/helpers.js';

// A private helper of src/lib used by the authentication layer.

describe('Semaphore', () => {
  it('validates its bounds', () => {
    expect(() => new Semaphore(0, 1)).toThrow(RangeError);
    expect(() => new Semaphore(1, -1)).toThrow(RangeError);
    expect(() => new Semaphore(1.5, 1)).toThrow(RangeError);
  });

  it('hands out slots up to the limit, then queues first in, first out', async () => {
    const semaphore = new Semaphore(2, 10);
    const order: number[] = [];
    const first = await semaphore.acquire();
    const second = await semaphore.acquire();
    expect(semaphore.active).toBe(2);
    const waiters = [3, 4, 5].map((n) =>
      semaphore.acquire()?.then((release) => {
        order.push(n);
        return release;
      }),
    );
    expect(semaphore.queued).toBe(3);
    await flush();
    expect(order).toEqual([]);
    first?.();
    await flush();
    expect(order).toEqual([3]);
    second?.();
    (await waiters[0])?.();
    await flush();
    expect(order).toEqual([3, 4, 5]);
    expect(semaphore.active).toBe(2);
    (await waiters[1])?.();
    (await waiters[2])?.();
    expect(semaphore.active).toBe(0);
    expect(semaphore.queued).toBe(0);
  });

  it('answers null when the queue is full', async () => {
    const semaphore = new Semaphore(1, 1);
    const held = await semaphore.acquire();
    const queued = semaphore.acquire();
    expect(queued).not.toBeNull();
    expect(semaphore.acquire()).toBeNull();
    held?.();
    (await queued)?.();
    expect(semaphore.acquire()).not.toBeNull();
  });

  it('ignores a second call of a release function', async () => {
    const semaphore = new Semaphore(1, 5);
    const release = await semaphore.acquire();
    release?.();
    release?.();
    expect(semaphore.active).toBe(0);
    const again = await semaphore.acquire();
    expect(semaphore.active).toBe(1);
    release?.();
    expect(semaphore.active).toBe(1);
    again?.();
  });

  it('run releases its slot when the task throws', async () => {
    const semaphore = new Semaphore(1, 0);
    await expect(semaphore.run(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(semaphore.active).toBe(0);
    expect(await semaphore.run(() => Promise.resolve(7))).toEqual({ ok: true, value: 7 });
  });

  it('run does not start the task when the queue is full', async () => {
    const semaphore = new Semaphore(1, 0);
    const held = gate();
    const running = semaphore.run(() => held.promise);
    let started = false;
    expect(
      await semaphore.run(() => {
        started = true;
        return Promise.resolve();
      }),
    ).toEqual({ ok: false });
    expect(started).toBe(false);
    held.open();
    await running;
  });

  it('stays bounded over many waiters', async () => {
    const semaphore = new Semaphore(1, 1000);
    const release = await semaphore.acquire();
    const waiters = Array.from({ length: 1000 }, () => semaphore.acquire());
    expect(semaphore.acquire()).toBeNull();
    release?.();
    for (const waiter of waiters) (await waiter)?.();
    expect(semaphore.active).toBe(0);
    expect(semaphore.queued).toBe(0);
  });
});
