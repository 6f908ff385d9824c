import { describe, expect, it } from 'vitest';
import {
  ScryptPasswordEncoder,
  type ScryptPasswordEncoderOptions,
} from '../../src/password/index.js';
import { passwordEncoderContract, type PhcEdit } from './encoder-contract.js';
import { configurationError, flip, withHash, withSalt } from './helpers.js';

const fast = { cost: 2 ** 10, dangerouslyAllowWeakParameters: true } as const;
const encoder = new ScryptPasswordEncoder(fast);
const PHC = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

const tampered: PhcEdit[] = [
  ['a flipped key character', (s) => withHash(s, (h) => flip(h, 5))],
  ['another salt', (s) => withSalt(s, 'AAAAAAAAAAAAAAAAAAAAAA')],
  ['another cost', (s) => s.replace('ln=10', 'ln=11')],
  ['another block size', (s) => s.replace('r=8', 'r=7')],
  ['another parallelization', (s) => s.replace('p=1', 'p=2')],
];
const malformed: PhcEdit[] = [
  ['an empty key', (s) => withHash(s, () => '')],
  ['a padded key', (s) => `${s}=`],
  ['a key in base64url', (s) => withHash(s, (h) => `${h}-_`)],
  ['a non-canonical final character', (s) => withHash(s, (h) => flip(h, -1).replace(/.$/u, 'B'))],
  ['invalid base64', (s) => withHash(s, (h) => `${h.slice(0, -4)}!!!!`)],
  ['an empty salt', (s) => withSalt(s, '')],
  ['a 4-byte salt', (s) => withSalt(s, 'AAAAAA')],
  ['a leading zero', (s) => s.replace('ln=10', 'ln=010')],
  ['a negative cost', (s) => s.replace('ln=10', 'ln=-10')],
  ['parameters out of order', (s) => s.replace('ln=10,r=8', 'r=8,ln=10')],
  ['an extra parameter', (s) => s.replace('p=1', 'p=1,x=1')],
  ['a missing parameter', (s) => s.replace('r=8,', '')],
  ['a version field', (s) => s.replace('$scrypt$', '$scrypt$v=1$')],
  ['another id', (s) => s.replace('$scrypt$', '$scrypt2$')],
  ['an upper-case id', (s) => s.replace('$scrypt$', '$SCRYPT$')],
  ['a trailing field', (s) => `${s}$AAAA`],
  ['surrounding whitespace', (s) => ` ${s}\n`],
];

passwordEncoderContract(
  'ScryptPasswordEncoder',
  (options) => new ScryptPasswordEncoder({ ...fast, ...options }),
  {
    format: /^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/,
    salted: true,
    edits: { tampered, malformed, keyIsPrefix: true },
    upgradesMalformed: true,
    malformed: [
      '',
      '$',
      '$scrypt$',
      '$scrypt$ln=10,r=8,p=1$',
      '$scrypt$ln=10,r=8,p=1$$',
      's3cret',
      '{scrypt}$scrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      `$scrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$${'A'.repeat(2000)}`,
    ],
  },
);

describe('ScryptPasswordEncoder', () => {
  it('uses OWASP’s parameters by default (N = 2^17, r = 8, p = 1, 16-byte salt, 32-byte key)', async () => {
    const defaults = new ScryptPasswordEncoder();
    const stored = await defaults.encode('correct horse');
    const [, ln, r, p, salt, key] = PHC.exec(stored)!;
    expect([ln, r, p]).toEqual(['17', '8', '1']);
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(key!, 'base64')).toHaveLength(32);
    expect(await defaults.matches('correct horse', stored)).toBe(true);
    expect(await defaults.matches('correct horsE', stored)).toBe(false);
    expect(defaults.upgradeEncoding(stored)).toBe(false);
  });

  it('verifies hashes made with other parameters from the parameters they carry', async () => {
    const other = new ScryptPasswordEncoder({
      ...fast,
      cost: 2 ** 11,
      blockSize: 4,
      parallelization: 2,
      keyLength: 48,
      saltLength: 24,
    });
    const stored = await other.encode('s3cret');
    expect(stored).toMatch(/^\$scrypt\$ln=11,r=4,p=2\$/);
    expect(await encoder.matches('s3cret', stored)).toBe(true);
    expect(await encoder.matches('s3cre', stored)).toBe(false);
  });

  describe('bounds on stored parameters', () => {
    it('refuses a correct hash needing more memory than maxMemory', async () => {
      // ln=11, r=8 needs 128 · 2^11 · 8 = 2 MiB
      const stored = await new ScryptPasswordEncoder({ ...fast, cost: 2 ** 11 }).encode('pw');
      const bounded = new ScryptPasswordEncoder({ ...fast, maxMemory: 2 ** 20 });
      expect(await encoder.matches('pw', stored)).toBe(true);
      expect(await bounded.matches('pw', stored)).toBe(false);
    });

    it('refuses a correct hash with more than 16-fold parallelization', async () => {
      const p16 = await new ScryptPasswordEncoder({ ...fast, parallelization: 16 }).encode('pw');
      expect(await encoder.matches('pw', p16)).toBe(true);
      const p17 = p16.replace('p=16', 'p=17');
      expect(await encoder.matches('pw', p17)).toBe(false);
    });

    it.each([
      'ln=40,r=8,p=1',
      'ln=64,r=8,p=1',
      'ln=1024,r=8,p=1',
      'ln=999999999999999,r=8,p=1',
      'ln=19,r=8,p=1',
      'ln=10,r=1073741823,p=1',
      'ln=10,r=8,p=1073741823',
      'ln=0,r=8,p=1',
      'ln=10,r=0,p=1',
      'ln=10,r=8,p=0',
    ])('rejects the absurd parameters %s', async (params) => {
      const stored = `$scrypt$${params}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
      expect(await new ScryptPasswordEncoder().matches('pw', stored)).toBe(false);
      expect(new ScryptPasswordEncoder().upgradeEncoding(stored)).toBe(true);
    });
  });

  describe('upgradeEncoding', () => {
    const base = { ...fast, cost: 2 ** 11, blockSize: 8, parallelization: 2 } as const;
    const current = new ScryptPasswordEncoder(base);
    const make = (options: ScryptPasswordEncoderOptions) =>
      new ScryptPasswordEncoder({ ...base, ...options }).encode('pw');

    it('is false for the current parameters and for stronger ones', async () => {
      expect(current.upgradeEncoding(await make({}))).toBe(false);
      expect(
        current.upgradeEncoding(await make({ cost: 2 ** 12, blockSize: 9, parallelization: 3 })),
      ).toBe(false);
      expect(current.upgradeEncoding(await make({ keyLength: 64, saltLength: 32 }))).toBe(false);
    });

    it.each<[string, ScryptPasswordEncoderOptions]>([
      ['cost', { cost: 2 ** 10 }],
      ['block size', { blockSize: 4 }],
      ['parallelization', { parallelization: 1 }],
      ['key', { keyLength: 16 }],
    ])('is true for a smaller %s', async (_, options) => {
      const stored = await make(options);
      expect(await current.matches('pw', stored)).toBe(true);
      expect(current.upgradeEncoding(stored)).toBe(true);
    });

    it('is true for a shorter salt', async () => {
      const stored = await new ScryptPasswordEncoder({ ...base, saltLength: 32 }).encode('pw');
      expect(new ScryptPasswordEncoder({ ...base, saltLength: 33 }).upgradeEncoding(stored)).toBe(
        true,
      );
    });
  });
});

describe('ScryptPasswordEncoder configuration', () => {
  it.each<[string, ScryptPasswordEncoderOptions]>([
    ['cost', { cost: 2 ** 16 }],
    ['cost', { cost: 2 ** 16, parallelization: 1 }],
    ['cost', { cost: 2 ** 14, parallelization: 4 }],
    ['cost', { blockSize: 7 }],
    ['cost', { ...fast, cost: 1000 }],
    ['cost', { ...fast, cost: 1 }],
    ['cost', { ...fast, cost: '1024' as unknown as number }],
    ['blockSize', { ...fast, blockSize: 0 }],
    ['blockSize', { ...fast, blockSize: 65 }],
    ['parallelization', { ...fast, parallelization: 17 }],
    ['keyLength', { ...fast, keyLength: 15 }],
    ['saltLength', { ...fast, saltLength: 8 }],
    ['maxMemory', { maxMemory: 2 ** 27 - 1 }],
    ['maxMemory', { ...fast, maxMemory: 1024 }],
  ])('rejects a bad %s: %j', (option, options) => {
    expect(configurationError(() => new ScryptPasswordEncoder(options))).toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option,
    });
  });

  it.each<ScryptPasswordEncoderOptions>([
    { cost: 2 ** 16, parallelization: 2 },
    { cost: 2 ** 15, parallelization: 3 },
    { cost: 2 ** 14, parallelization: 5 },
    { cost: 2 ** 13, parallelization: 10 },
    { cost: 2 ** 18, maxMemory: 2 ** 28 },
  ])('accepts OWASP’s equivalent configuration %j', (options) => {
    expect(() => new ScryptPasswordEncoder(options)).not.toThrow();
  });

  it('does not touch the caller’s options', async () => {
    const options = Object.freeze({ ...fast });
    expect(await new ScryptPasswordEncoder(options).encode('pw')).toContain('ln=10,r=8,p=1');
    expect(options).toEqual(fast);
  });
});
