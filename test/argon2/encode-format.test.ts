import { describe, expect, it, vi } from 'vitest';

// The salt is the only random input of encode: pinning it to the reference
// vectors' "somesalt" makes encode's whole output comparable with the reference.
const salts = vi.hoisted(() => ({ requested: [] as number[] }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    randomBytes: (size: number) => {
      salts.requested.push(size);
      return Buffer.from('somesalt');
    },
  };
});

const { Argon2PasswordEncoder } = await import('../../src/argon2/index.js');

describe('Argon2PasswordEncoder.encode output', () => {
  it('is byte for byte the reference implementation’s PHC string (m, t, p order)', async () => {
    const encoder = new Argon2PasswordEncoder({
      memoryCost: 256,
      timeCost: 2,
      parallelism: 1,
      dangerouslyAllowWeakParameters: true,
    });
    expect(await encoder.encode('password')).toBe(
      '$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
    );
    expect(salts.requested).toEqual([16]);
  });
});
