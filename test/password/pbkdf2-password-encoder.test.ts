import { describe, expect, it } from 'vitest';
import {
  Pbkdf2PasswordEncoder,
  type Pbkdf2PasswordEncoderOptions,
} from '../../src/password/index.js';
import { passwordEncoderContract, type PhcEdit } from './encoder-contract.js';
import { configurationError, flip, withHash, withSalt } from './helpers.js';

const fast = { iterations: 1000, dangerouslyAllowWeakParameters: true } as const;
const encoder = new Pbkdf2PasswordEncoder(fast);
const PHC = /^\$(pbkdf2-sha(?:256|512))\$i=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

const tampered: PhcEdit[] = [
  ['a flipped key character', (s) => withHash(s, (h) => flip(h, 7))],
  ['another salt', (s) => withSalt(s, 'AAAAAAAAAAAAAAAAAAAAAA')],
  ['another iteration count', (s) => s.replace('i=1000', 'i=1001')],
  ['another digest', (s) => s.replace('sha256', 'sha512')],
];
const malformed: PhcEdit[] = [
  ['an empty key', (s) => withHash(s, () => '')],
  ['a padded key', (s) => `${s}=`],
  ['invalid base64', (s) => withHash(s, (h) => `${h.slice(0, -4)}.../`)],
  ['an empty salt', (s) => withSalt(s, '')],
  ['a leading zero', (s) => s.replace('i=1000', 'i=01000')],
  ['a fractional count', (s) => s.replace('i=1000', 'i=1000.5')],
  ['an exponent', (s) => s.replace('i=1000', 'i=1e3')],
  ['a zero count', (s) => s.replace('i=1000', 'i=0')],
  ['a renamed parameter', (s) => s.replace('i=1000', 'rounds=1000')],
  ['an extra parameter', (s) => s.replace('i=1000', 'i=1000,l=32')],
  ['passlib’s format', (s) => s.replace('i=1000', '1000')],
  ['an unsupported digest', (s) => s.replace('sha256', 'sha1')],
  ['a version field', (s) => s.replace('$pbkdf2-sha256$', '$pbkdf2-sha256$v=1$')],
];

passwordEncoderContract(
  'Pbkdf2PasswordEncoder',
  (options) => new Pbkdf2PasswordEncoder({ ...fast, ...options }),
  {
    format: /^\$pbkdf2-sha256\$i=1000\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/,
    salted: true,
    edits: { tampered, malformed, keyIsPrefix: true },
    upgradesMalformed: true,
    malformed: ['', '$pbkdf2-sha256$', '$pbkdf2-sha256$i=1000$', 's3cret', '{pbkdf2}s3cret'],
  },
);

describe('Pbkdf2PasswordEncoder', () => {
  it('uses PBKDF2-HMAC-SHA-256 with 600,000 iterations by default (OWASP)', async () => {
    const defaults = new Pbkdf2PasswordEncoder();
    const stored = await defaults.encode('correct horse');
    const [, id, i, salt, key] = PHC.exec(stored)!;
    expect([id, i]).toEqual(['pbkdf2-sha256', '600000']);
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(key!, 'base64')).toHaveLength(32);
    expect(await defaults.matches('correct horse', stored)).toBe(true);
    expect(defaults.upgradeEncoding(stored)).toBe(false);
  });

  it('uses 210,000 iterations and a 64-byte key for SHA-512 by default (OWASP)', async () => {
    const sha512 = new Pbkdf2PasswordEncoder({ algorithm: 'sha512' });
    const [, id, i, , key] = PHC.exec(await sha512.encode('correct horse'))!;
    expect([id, i]).toEqual(['pbkdf2-sha512', '210000']);
    expect(Buffer.from(key!, 'base64')).toHaveLength(64);
  });

  it('verifies hashes of the other digest and other iteration counts, and asks to upgrade them', async () => {
    const sha512 = new Pbkdf2PasswordEncoder({ ...fast, algorithm: 'sha512', iterations: 1500 });
    const stored = await sha512.encode('s3cret');
    expect(stored).toMatch(/^\$pbkdf2-sha512\$i=1500\$/);
    expect(await encoder.matches('s3cret', stored)).toBe(true);
    expect(await encoder.matches('s3cre', stored)).toBe(false);
    expect(encoder.upgradeEncoding(stored)).toBe(true);
    expect(sha512.upgradeEncoding(await encoder.encode('s3cret'))).toBe(true);
  });

  describe('bounds on stored parameters', () => {
    it('refuses a correct hash with more iterations than maxIterations', async () => {
      const stored = await new Pbkdf2PasswordEncoder({ ...fast, iterations: 2000 }).encode('pw');
      const bounded = new Pbkdf2PasswordEncoder({ ...fast, maxIterations: 1999 });
      expect(await encoder.matches('pw', stored)).toBe(true);
      expect(await bounded.matches('pw', stored)).toBe(false);
    });

    it('counts each digest block of a long key as work', async () => {
      const stored = await new Pbkdf2PasswordEncoder({ ...fast, keyLength: 64 }).encode('pw');
      expect(await encoder.matches('pw', stored)).toBe(true);
      const bounded = new Pbkdf2PasswordEncoder({ ...fast, maxIterations: 1999 });
      expect(await bounded.matches('pw', stored)).toBe(false);
    });

    it.each(['i=1000000000000', 'i=5000001', 'i=999999999999999', 'i=2147483648'])(
      'rejects the absurd count %s',
      async (params) => {
        const stored = `$pbkdf2-sha256$${params}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
        expect(await new Pbkdf2PasswordEncoder().matches('pw', stored)).toBe(false);
      },
    );
  });

  describe('upgradeEncoding', () => {
    const current = new Pbkdf2PasswordEncoder({ ...fast, iterations: 1500 });
    it('is false for the current parameters and stronger ones', async () => {
      expect(current.upgradeEncoding(await current.encode('pw'))).toBe(false);
      const stronger = new Pbkdf2PasswordEncoder({
        ...fast,
        iterations: 1600,
        keyLength: 48,
        saltLength: 32,
      });
      expect(current.upgradeEncoding(await stronger.encode('pw'))).toBe(false);
    });

    it.each<[string, Pbkdf2PasswordEncoderOptions]>([
      ['fewer iterations', { iterations: 1499 }],
      ['a shorter key', { iterations: 1500, keyLength: 16 }],
      ['another digest', { iterations: 1500, algorithm: 'sha512' }],
    ])('is true for %s', async (_, options) => {
      const stored = await new Pbkdf2PasswordEncoder({ ...fast, ...options }).encode('pw');
      expect(await current.matches('pw', stored)).toBe(true);
      expect(current.upgradeEncoding(stored)).toBe(true);
    });

    it('is true for a shorter salt', async () => {
      const stored = await current.encode('pw');
      const longerSalt = new Pbkdf2PasswordEncoder({ ...fast, iterations: 1500, saltLength: 17 });
      expect(longerSalt.upgradeEncoding(stored)).toBe(true);
    });
  });
});

describe('Pbkdf2PasswordEncoder configuration', () => {
  it.each<[string, Pbkdf2PasswordEncoderOptions]>([
    ['iterations', { iterations: 599_999 }],
    ['iterations', { algorithm: 'sha512', iterations: 209_999 }],
    ['iterations', { ...fast, iterations: 0 }],
    ['iterations', { ...fast, iterations: 1000.5 }],
    ['algorithm', { algorithm: 'sha1' as 'sha256' }],
    ['algorithm', { algorithm: 'SHA256' as 'sha256' }],
    ['keyLength', { ...fast, keyLength: 8 }],
    ['saltLength', { ...fast, saltLength: 4 }],
    ['maxIterations', { iterations: 6_000_000 }],
    ['maxIterations', { iterations: 700_000, keyLength: 256 }],
    ['maxIterations', { ...fast, keyLength: 64, maxIterations: 1999 }],
  ])('rejects a bad %s: %j', (option, options) => {
    expect(configurationError(() => new Pbkdf2PasswordEncoder(options))).toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option,
    });
  });

  it('does not touch the caller’s options', async () => {
    const options = Object.freeze({ ...fast, algorithm: 'sha512' } as const);
    expect(await new Pbkdf2PasswordEncoder(options).encode('pw')).toMatch(/^\$pbkdf2-sha512\$/);
    expect(options).toEqual({ ...fast, algorithm: 'sha512' });
  });
});
