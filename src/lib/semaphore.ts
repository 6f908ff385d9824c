/** Gives a semaphore slot back; calling it more than once has no further effect. @internal */
export type Release = () => void;

/**
 * A counting semaphore with a bounded wait queue, for limiting concurrent expensive
 * work (password hashing runs on libuv's small thread pool, shared with `fs` and
 * `dns`). When every slot is taken and the queue is full, {@link Semaphore.acquire}
 * answers `null` at once, so callers fail closed instead of piling up memory or
 * hanging. Waiters are served first in, first out.
 *
 * @internal
 */
export class Semaphore {
  readonly #maxConcurrent: number;
  readonly #maxQueued: number;
  #active = 0;
  #queue: ((release: Release) => void)[] = [];
  #head = 0;

  /**
   * @param maxConcurrent - how many holders at once (at least 1)
   * @param maxQueued - how many waiters at most (0: never wait)
   */
  constructor(maxConcurrent: number, maxQueued: number) {
    if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
      throw new RangeError('maxConcurrent must be a positive integer');
    }
    if (!Number.isInteger(maxQueued) || maxQueued < 0) {
      throw new RangeError('maxQueued must be a non-negative integer');
    }
    this.#maxConcurrent = maxConcurrent;
    this.#maxQueued = maxQueued;
  }

  /** How many slots are held. */
  get active(): number {
    return this.#active;
  }

  /** How many callers wait for a slot. */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  /**
   * A slot: a promise of its release function, or `null` when the queue is full.
   * The caller must call the release function exactly when its work is done
   * (in a `finally`).
   */
  acquire(): Promise<Release> | null {
    if (this.#active < this.#maxConcurrent) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    if (this.queued >= this.#maxQueued) return null;
    return new Promise<Release>((resolve) => {
      this.#queue.push(resolve);
    });
  }

  /**
   * Runs `task` holding a slot. Resolves with `{ ok: true, value }`, or
   * `{ ok: false }` without running the task when the queue is full. A task
   * that throws or rejects releases its slot and rejects the returned promise.
   */
  async run<T>(task: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
    const slot = this.acquire();
    if (slot === null) return { ok: false };
    const release = await slot;
    try {
      return { ok: true, value: await task() };
    } finally {
      release();
    }
  }

  #releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#next();
    };
  }

  #next(): void {
    if (this.#head < this.#queue.length) {
      const waiter = this.#queue[this.#head] as (release: Release) => void;
      this.#head++;
      if (this.#head === this.#queue.length) {
        this.#queue = [];
        this.#head = 0;
      } else if (this.#head > 64 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      // The slot passes straight to the next waiter: `active` stays the same.
      waiter(this.#releaser());
      return;
    }
    this.#active--;
  }
}
