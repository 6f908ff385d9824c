import { MemoryThrottleStore } from '../../src/stores/index.js';
import type {
  MaybePromise,
  ThrottleAdmission,
  ThrottleRule,
  ThrottleState,
  ThrottleStore,
  WindowCount,
} from '../../src/stores/types.js';

/** A memory store that records every key it is asked about, and can be made to fail or hang. */
export class RecordingStore implements ThrottleStore {
  readonly inner = new MemoryThrottleStore();
  readonly keys: string[] = [];
  /** `'throw'`: every call throws; `'reject'`: answers a rejected promise; `'hang'`: never answers. */
  mode: 'ok' | 'async' | 'throw' | 'reject' | 'hang' = 'ok';
  /** Which calls the mode applies to (every call by default); the others answer at once. */
  failing: (operation: 'acquire' | 'peek' | 'release' | 'hit', key: string) => boolean = () => true;

  acquire(key: string, rule: ThrottleRule, nowMs: number): MaybePromise<ThrottleAdmission> {
    return this.#answer('acquire', key, () => this.inner.acquire(key, rule, nowMs));
  }

  peek(key: string, nowMs: number): MaybePromise<ThrottleState | null> {
    return this.#answer('peek', key, () => this.inner.peek(key, nowMs));
  }

  release(
    key: string,
    how: 'reset' | 'refund',
    rule: ThrottleRule,
    nowMs: number,
  ): MaybePromise<void> {
    return this.#answer('release', key, () => {
      this.inner.release(key, how, rule, nowMs);
    });
  }

  hit(key: string, windowMs: number, nowMs: number): MaybePromise<WindowCount> {
    return this.#answer('hit', key, () => this.inner.hit(key, windowMs, nowMs));
  }

  #answer<T>(
    operation: 'acquire' | 'peek' | 'release' | 'hit',
    key: string,
    work: () => T,
  ): MaybePromise<T> {
    this.keys.push(key);
    const mode = this.failing(operation, key) ? this.mode : 'ok';
    switch (mode) {
      case 'ok':
        return work();
      case 'async':
        return Promise.resolve().then(work);
      case 'throw':
        throw new Error(`connection refused (${key})`);
      case 'reject':
        return Promise.reject(new Error(`connection reset (${key})`));
      case 'hang':
        return new Promise<T>(() => undefined);
    }
  }
}
