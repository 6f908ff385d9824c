// The contract of every ThrottleStore, run against the memory store and the Redis
// store alike: the memory store is the reference, the others must answer the same.
import { describe, expect, it } from 'vitest';
import type { ThrottleRule, ThrottleStore } from '../../src/stores/index.js';
import type { TestClock } from '../support/clock.js';

/** The stores under test: two handles on the same counters (two instances' connections). */
export interface ThrottleStorePair {
  readonly store: ThrottleStore;
  /** Another instance's store on the same counters (the same store for memory). */
  readonly other: ThrottleStore;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

const RULE: ThrottleRule = {
  max: 3,
  windowMs: 15 * MINUTE,
  delayMs: SECOND,
  maxDelayMs: 8 * SECOND,
};

let serial = 0;
/** A key no other test uses (the counters outlive a test). */
function freshKey(name: string): string {
  serial += 1;
  return `contract:${name}:${serial}:${Date.now()}`;
}

/**
 * Runs the {@link ThrottleStore} contract. `pair` is called inside each test (the
 * stores may be made in a `beforeAll`); `clock` gives every `nowMs` and is moved by
 * the tests.
 */
export function throttleStoreContract(
  name: string,
  pair: () => ThrottleStorePair,
  clock: TestClock,
): void {
  describe(`${name}: the ThrottleStore contract`, () => {
    it('acquire lets max attempts through, then refuses until the block ends, counting nothing', async () => {
      const { store } = pair();
      const key = freshKey('acquire');
      const t0 = clock.now();
      expect(await store.acquire(key, RULE, t0)).toEqual({ allowed: true, count: 1 });
      expect(await store.acquire(key, RULE, t0)).toEqual({ allowed: true, count: 2 });
      // The attempt that reaches max is let through and blocks the key for delayMs.
      expect(await store.acquire(key, RULE, t0)).toEqual({ allowed: true, count: 3 });
      for (let i = 0; i < 5; i++) {
        expect(await store.acquire(key, RULE, t0)).toEqual({
          allowed: false,
          count: 3,
          retryAtMs: t0 + SECOND,
        });
      }
      clock.set(t0 + SECOND - 1);
      expect(await store.acquire(key, RULE, clock.now())).toEqual({
        allowed: false,
        count: 3,
        retryAtMs: t0 + SECOND,
      });
      expect(await store.peek(key, clock.now())).toEqual({ count: 3, blockedUntilMs: t0 + SECOND });
    });

    it('after a block, the next attempt is let through and the block doubles, up to maxDelayMs', async () => {
      const { store } = pair();
      const key = freshKey('doubling');
      let now = clock.now();
      for (let i = 1; i <= 3; i++) await store.acquire(key, RULE, now);
      const blocks: number[] = [];
      for (let attempt = 4; attempt <= 8; attempt++) {
        const state = await store.peek(key, now);
        now = state?.blockedUntilMs ?? Number.NaN;
        clock.set(now);
        expect(await store.acquire(key, RULE, now)).toEqual({ allowed: true, count: attempt });
        const blocked = await store.acquire(key, RULE, now);
        expect(blocked.allowed).toBe(false);
        blocks.push(blocked.allowed ? 0 : blocked.retryAtMs - now);
      }
      expect(blocks).toEqual([2, 4, 8, 8, 8].map((s) => s * SECOND));
    });

    it('the doubling exponent is capped (no overflow on a long attack)', async () => {
      const { store } = pair();
      const key = freshKey('exponent');
      const rule: ThrottleRule = {
        max: 1,
        windowMs: SECOND,
        delayMs: 1,
        maxDelayMs: Number.MAX_SAFE_INTEGER,
      };
      let now = clock.now();
      const blocks: number[] = [];
      for (let attempt = 1; attempt <= 45; attempt++) {
        expect(await store.acquire(key, rule, now)).toEqual({ allowed: true, count: attempt });
        const refused = await store.acquire(key, rule, now);
        if (refused.allowed) throw new Error(`attempt ${attempt} was not blocked`);
        blocks.push(refused.retryAtMs - now);
        now = refused.retryAtMs;
      }
      expect(blocks).toEqual(Array.from({ length: 45 }, (_, i) => 2 ** Math.min(i, 40)));
      clock.set(now);
    });

    it('a new key ends windowMs after its first attempt; later attempts do not extend it', async () => {
      const { store } = pair();
      const key = freshKey('window');
      const t0 = clock.now();
      await store.acquire(key, RULE, t0);
      await store.acquire(key, RULE, t0 + RULE.windowMs / 2);
      expect(await store.peek(key, t0 + RULE.windowMs - 1)).toEqual({
        count: 2,
        blockedUntilMs: 0,
      });
      expect(await store.peek(key, t0 + RULE.windowMs)).toBeNull();
      expect(await store.acquire(key, RULE, t0 + RULE.windowMs)).toEqual({
        allowed: true,
        count: 1,
      });
      clock.set(t0 + RULE.windowMs);
    });

    it('a blocked key is kept at least windowMs past its block', async () => {
      const { store } = pair();
      const key = freshKey('kept');
      const rule: ThrottleRule = {
        ...RULE,
        windowMs: MINUTE,
        delayMs: 10 * MINUTE,
        maxDelayMs: 10 * MINUTE,
      };
      const t0 = clock.now();
      for (let i = 0; i < 3; i++) await store.acquire(key, rule, t0);
      const until = t0 + 10 * MINUTE;
      expect(await store.peek(key, until + MINUTE - 1)).toEqual({
        count: 3,
        blockedUntilMs: until,
      });
      // Let through once the block has lapsed, the count still there: the block doubles.
      expect(await store.acquire(key, rule, until)).toEqual({ allowed: true, count: 4 });
      const again = until + 10 * MINUTE; // min(maxDelayMs, 2 × delayMs)
      expect(await store.peek(key, again + MINUTE - 1)).toEqual({
        count: 4,
        blockedUntilMs: again,
      });
      expect(await store.peek(key, again + MINUTE)).toBeNull();
      clock.set(again + MINUTE);
    });

    it('peek counts nothing and answers null for an unknown key', async () => {
      const { store, other } = pair();
      const key = freshKey('peek');
      const now = clock.now();
      expect(await store.peek(key, now)).toBeNull();
      expect(await store.peek(key, now)).toBeNull();
      await store.acquire(key, RULE, now);
      for (let i = 0; i < 10; i++) {
        expect(await other.peek(key, now)).toEqual({ count: 1, blockedUntilMs: 0 });
      }
      expect(await store.acquire(key, RULE, now)).toEqual({ allowed: true, count: 2 });
    });

    it("release 'reset' forgets the key, block included", async () => {
      const { store, other } = pair();
      const key = freshKey('reset');
      const now = clock.now();
      for (let i = 0; i < 4; i++) await store.acquire(key, RULE, now);
      await other.release(key, 'reset', RULE, now);
      expect(await store.peek(key, now)).toBeNull();
      expect(await store.acquire(key, RULE, now)).toEqual({ allowed: true, count: 1 });
      await store.release(freshKey('never-seen'), 'reset', RULE, now);
    });

    it("release 'refund' takes back one attempt and lifts the block below max", async () => {
      const { store, other } = pair();
      const key = freshKey('refund');
      const now = clock.now();
      for (let i = 0; i < 3; i++) await store.acquire(key, RULE, now);
      expect((await store.acquire(key, RULE, now)).allowed).toBe(false);
      await other.release(key, 'refund', RULE, now);
      expect(await store.peek(key, now)).toEqual({ count: 2, blockedUntilMs: 0 });
      // Reaching max again blocks again, for delayMs (the doubling starts at max).
      expect(await store.acquire(key, RULE, now)).toEqual({ allowed: true, count: 3 });
      expect(await store.acquire(key, RULE, now)).toEqual({
        allowed: false,
        count: 3,
        retryAtMs: now + SECOND,
      });
      // Never below zero; a refund of an unknown key makes no key.
      const once = freshKey('refund-floor');
      await store.acquire(once, RULE, now);
      await store.release(once, 'refund', RULE, now);
      await store.release(once, 'refund', RULE, now);
      expect(await store.peek(once, now)).toEqual({ count: 0, blockedUntilMs: 0 });
      const unknown = freshKey('refund-unknown');
      await store.release(unknown, 'refund', RULE, now);
      expect(await store.peek(unknown, now)).toBeNull();
    });

    it('a refund above max lifts the doubled block its attempt set, as if it was never made', async () => {
      const { store, other } = pair();
      const key = freshKey('refund-above');
      const t0 = clock.now();
      for (let i = 0; i < 3; i++) await store.acquire(key, RULE, t0);
      await store.acquire(key, RULE, t0 + SECOND); // count 4, blocked for 2 s
      await other.release(key, 'refund', RULE, t0 + SECOND);
      expect(await store.peek(key, t0 + SECOND)).toEqual({ count: 3, blockedUntilMs: 0 });
      // The next attempt is the fourth again: it blocks for 2 s, not 4.
      expect(await store.acquire(key, RULE, t0 + SECOND)).toEqual({ allowed: true, count: 4 });
      expect(await store.peek(key, t0 + SECOND)).toEqual({
        count: 4,
        blockedUntilMs: t0 + 3 * SECOND,
      });
    });

    it('hit counts requests in a fixed window, then starts a new one', async () => {
      const { store, other } = pair();
      const key = freshKey('hit');
      const t0 = clock.now();
      expect(await store.hit(key, MINUTE, t0)).toEqual({ count: 1, resetAtMs: t0 + MINUTE });
      expect(await other.hit(key, MINUTE, t0 + 10)).toEqual({ count: 2, resetAtMs: t0 + MINUTE });
      expect(await store.hit(key, MINUTE, t0 + MINUTE - 1)).toEqual({
        count: 3,
        resetAtMs: t0 + MINUTE,
      });
      expect(await other.hit(key, MINUTE, t0 + MINUTE)).toEqual({
        count: 1,
        resetAtMs: t0 + 2 * MINUTE,
      });
      clock.set(t0 + MINUTE);
    });

    it('a concurrent burst of 200 attempts on two instances is counted exactly', async () => {
      const { store, other } = pair();
      const now = clock.now();
      const burst = (key: string, rule: ThrottleRule) =>
        Promise.all(
          Array.from({ length: 200 }, async (_, i) =>
            (i % 2 === 0 ? store : other).acquire(key, rule, now),
          ),
        );

      const wide = freshKey('burst-wide');
      const all = await burst(wide, { ...RULE, max: 1_000 });
      expect(all.every((a) => a.allowed)).toBe(true);
      expect(all.map((a) => a.count).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 200 }, (_, i) => i + 1),
      );
      expect(await store.peek(wide, now)).toEqual({ count: 200, blockedUntilMs: 0 });

      const narrow = freshKey('burst-narrow');
      const five = await burst(narrow, { ...RULE, max: 5 });
      const allowed = five.filter((a) => a.allowed);
      expect(allowed.map((a) => a.count).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5]);
      const refused = five.filter((a) => !a.allowed);
      expect(refused).toHaveLength(195);
      expect(refused.every((a) => a.count === 5 && a.retryAtMs === now + SECOND)).toBe(true);
      expect(await other.peek(narrow, now)).toEqual({ count: 5, blockedUntilMs: now + SECOND });
    });

    it('a concurrent burst of 200 hits on two instances sees each count once', async () => {
      const { store, other } = pair();
      const now = clock.now();
      const key = freshKey('burst-hit');
      const counts = await Promise.all(
        Array.from({ length: 200 }, async (_, i) =>
          (i % 2 === 0 ? other : store).hit(key, MINUTE, now),
        ),
      );
      expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 200 }, (_, i) => i + 1),
      );
      expect(new Set(counts.map((c) => c.resetAtMs))).toEqual(new Set([now + MINUTE]));
    });

    it('odd keys (braces, spaces, unicode, lone surrogates, 10 KB) are separate counters', async () => {
      const { store, other } = pair();
      const now = clock.now();
      const base = freshKey('odd');
      const long = 'k'.repeat(10_240);
      const keys = [
        base,
        `${base} `,
        `{${base}}`,
        `${base}}`,
        `${base}{`,
        `${base}:`,
        `${base} ünïcödé 🔑`,
        `${base}\uD800`,
        `${base}\uFFFD`,
        `${base}\r\n*1\r\n$4\r\nPING`,
        `${base}${long}`,
        `${base}${long}x`,
        '',
      ];
      await store.release('', 'reset', RULE, now);
      const first = await Promise.all(keys.map(async (key) => store.acquire(key, RULE, now)));
      expect(first.map((a) => a.count)).toEqual(keys.map(() => 1));
      const second = await Promise.all(keys.map(async (key) => other.acquire(key, RULE, now)));
      expect(second.map((a) => a.count)).toEqual(keys.map(() => 2));
      for (const key of keys) {
        expect(await other.hit(`${key}-rate`, MINUTE, now)).toEqual({
          count: 1,
          resetAtMs: now + MINUTE,
        });
        expect(await store.peek(key, now)).toEqual({ count: 2, blockedUntilMs: 0 });
      }
      await store.release('', 'reset', RULE, now);
      expect(await store.peek('', now)).toBeNull();
    });
  });
}
