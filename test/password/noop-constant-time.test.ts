import { describe, expect, it, vi } from 'vitest';

const compared = vi.hoisted(() => [] as [number, number][]);
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([a.byteLength, b.byteLength]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});

const { NoOpPasswordEncoder } = await import('../../src/password/index.js');

describe('NoOpPasswordEncoder.matches', () => {
  it('compares equal-length digests with timingSafeEqual, whatever the lengths of the inputs', async () => {
    const encoder = new NoOpPasswordEncoder();
    expect(await encoder.matches('a', 'a much longer stored password')).toBe(false);
    expect(await encoder.matches('a much longer raw password', '')).toBe(false);
    expect(await encoder.matches('same', 'same')).toBe(true);
    expect(compared).toEqual([
      [32, 32],
      [32, 32],
      [32, 32],
    ]);
  });
});
