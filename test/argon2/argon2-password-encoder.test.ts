import { argon2id, hash } from 'argon2';
import { describe, expect, it } from 'vitest';
import {
  Argon2PasswordEncoder,
  type Argon2PasswordEncoderOptions,
} from '../../src/argon2/index.js';
import { passwordEncoderContract, type PhcEdit } from '../password/encoder-contract.js';
import { configurationError } from '../password/helpers.js';

const fast = {
  memoryCost: 64,
  timeCost: 1,
  parallelism: 1,
  dangerouslyAllowWeakParameters: true,
} as const;
const encoder = new Argon2PasswordEncoder(fast);
const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

// Still well-formed: Argon2id, version 19, parameters no weaker than the encoder's.
const tampered: PhcEdit[] = [
  ['a flipped tag character', (s) => s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1)!],
  ['another salt', (s) => s.replace(/\$[^$]+\$([^$]+)$/, '$AAAAAAAAAAAAAAAAAAAAAA$$$1')],
  ['a changed memory cost', (s) => s.replace('m=64', 'm=72')],
  ['a changed time cost', (s) => s.replace('t=1', 't=2')],
];
const malformed: PhcEdit[] = [
  ['another type', (s) => s.replace('$argon2id$', '$argon2i$')],
  ['another version', (s) => s.replace('v=19', 'v=16')],
  ['an unknown version', (s) => s.replace('v=19', 'v=20')],
  ['an unknown type', (s) => s.replace('$argon2id$', '$argon2x$')],
  ['an empty tag', (s) => s.replace(/[^$]+$/, '')],
  ['a tag truncated to 12 bytes', (s) => s.replace(/([^$]{16})[^$]+$/, '$1')],
  ['a padded tag', (s) => `${s}=`],
  [
    'a tag in base64url',
    (s) => s.replace(/[^$]+$/, (t) => t.replaceAll('+', '-').replaceAll('/', '_') + '-_'),
  ],
  [
    'a non-canonical final character',
    (s) => s.replace(/[^$]+$/, (t) => `${t.slice(0, -1)}${t.endsWith('B') ? 'C' : 'B'}`),
  ],
  ['a leading zero', (s) => s.replace('m=64', 'm=064')],
  ['a repeated parameter', (s) => s.replace('m=64,t=1,p=1', 'm=64,m=64,t=1')],
  ['an extra parameter', (s) => s.replace('p=1', 'p=1,x=1')],
  ['associated data', (s) => s.replace('p=1', 'p=1,data=AAAA')],
  ['a missing parameter', (s) => s.replace('m=64,', '')],
  ['no salt', (s) => s.replace(/\$[^$]+(\$[^$]+)$/, '$1')],
  ['a trailing field', (s) => `${s}$AAAA`],
  ['leading whitespace', (s) => ` ${s}`],
  ['a trailing newline', (s) => `${s}\n`],
];

passwordEncoderContract(
  'Argon2PasswordEncoder',
  (options) => new Argon2PasswordEncoder({ ...fast, ...options }),
  {
    format: /^\$argon2id\$v=19\$m=64,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/,
    salted: true,
    edits: { tampered, tamperedUpgrade: false, malformed, keyIsPrefix: false },
    upgradesMalformed: true,
    malformed: [
      '',
      '$',
      '$argon2id$',
      '$argon2id$v=19$',
      'plain',
      '{noop}s3cret',
      '$'.repeat(5000),
    ],
  },
);

describe('Argon2PasswordEncoder', () => {
  it('uses OWASP’s recommended Argon2id parameters by default', async () => {
    const defaults = new Argon2PasswordEncoder();
    const stored = await defaults.encode('correct horse');
    const [, m, t, p, salt, tag] = PHC.exec(stored)!;
    expect([m, t, p]).toEqual(['19456', '2', '1']);
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(tag!, 'base64')).toHaveLength(32);
    expect(await defaults.matches('correct horse', stored)).toBe(true);
    expect(defaults.upgradeEncoding(stored)).toBe(false);
  });

  it('verifies hashes written by the argon2 package itself (m,p,t since 0.44, m,t,p before)', async () => {
    const stored = await hash('s3cret', {
      type: argon2id,
      memoryCost: 64,
      timeCost: 1,
      parallelism: 1,
    });
    expect(stored).toMatch(/\$m=64,(p=1,t=1|t=1,p=1)\$/u);
    expect(await encoder.matches('s3cret', stored)).toBe(true);
    expect(await encoder.matches('other', stored)).toBe(false);
    expect(encoder.upgradeEncoding(stored)).toBe(false);
  });

  describe('bounds on stored parameters', () => {
    const bounded = new Argon2PasswordEncoder({ ...fast, maxMemoryCost: 64, maxTimeCost: 2 });

    it('refuses a correct hash asking for more memory than maxMemoryCost', async () => {
      const stored = await new Argon2PasswordEncoder({ ...fast, memoryCost: 128 }).encode('pw');
      expect(await encoder.matches('pw', stored)).toBe(true);
      expect(await bounded.matches('pw', stored)).toBe(false);
    });

    it('refuses a correct hash asking for more passes than maxTimeCost', async () => {
      const stored = await new Argon2PasswordEncoder({ ...fast, timeCost: 3 }).encode('pw');
      expect(await encoder.matches('pw', stored)).toBe(true);
      expect(await bounded.matches('pw', stored)).toBe(false);
    });

    it('refuses a correct hash with more than 16 lanes', async () => {
      const stored = await hash('pw', {
        type: argon2id,
        memoryCost: 8 * 17,
        timeCost: 1,
        parallelism: 17,
      });
      expect(await encoder.matches('pw', stored)).toBe(false);
    });

    it.each([
      '$argon2id$v=19$m=4194304,t=1,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
      '$argon2id$v=19$m=4294967295,t=1,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
      '$argon2id$v=19$m=256,t=4294967295,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
      '$argon2id$v=19$m=256,t=2,p=16777215$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
      '$argon2id$v=19$m=999999999999999,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
      '$argon2id$v=19$m=8,t=2,p=2$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
      '$argon2id$v=19$m=256,t=0,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
      '$argon2id$v=19$m=256,t=2,p=0$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
      '$argon2id$v=19$m=256,t=2,p=1$c2FsdA$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
    ])('rejects the out-of-range hash %s', async (stored) => {
      expect(await new Argon2PasswordEncoder().matches('password', stored)).toBe(false);
    });
  });

  describe('upgradeEncoding', () => {
    const current = new Argon2PasswordEncoder({
      ...fast,
      memoryCost: 128,
      timeCost: 2,
      parallelism: 2,
    });
    const make = (options: Argon2PasswordEncoderOptions) =>
      new Argon2PasswordEncoder({
        ...fast,
        memoryCost: 128,
        timeCost: 2,
        parallelism: 2,
        ...options,
      }).encode('pw');

    it('is false for the current parameters and for stronger ones', async () => {
      expect(current.upgradeEncoding(await make({}))).toBe(false);
      expect(
        current.upgradeEncoding(await make({ memoryCost: 256, timeCost: 3, parallelism: 3 })),
      ).toBe(false);
      expect(current.upgradeEncoding(await make({ hashLength: 64, saltLength: 32 }))).toBe(false);
    });

    it.each<[string, Argon2PasswordEncoderOptions]>([
      ['memory cost', { memoryCost: 64 }],
      ['time cost', { timeCost: 1 }],
      ['parallelism', { parallelism: 1 }],
      ['hash length', { hashLength: 16 }],
    ])('is true for a smaller %s', async (_, options) => {
      expect(current.upgradeEncoding(await make(options))).toBe(true);
    });

    it('is true for Argon2i, Argon2d and version 0x10 hashes', async () => {
      for (const type of [0, 1] as const) {
        const stored = await hash('pw', { type, memoryCost: 128, timeCost: 2, parallelism: 2 });
        expect(await current.matches('pw', stored)).toBe(true);
        expect(current.upgradeEncoding(stored)).toBe(true);
      }
      const old = await hash('pw', {
        type: argon2id,
        version: 0x10,
        memoryCost: 128,
        timeCost: 2,
        parallelism: 2,
      });
      expect(old).toContain('$v=16$');
      expect(await current.matches('pw', old)).toBe(true);
      expect(current.upgradeEncoding(old)).toBe(true);
    });
  });
});

describe('Argon2PasswordEncoder configuration', () => {
  it.each<[string, Argon2PasswordEncoderOptions]>([
    ['memoryCost', { memoryCost: 19455 }],
    ['memoryCost', { memoryCost: 47103, timeCost: 1 }],
    ['memoryCost', { memoryCost: 7168, timeCost: 4 }],
    ['memoryCost', { memoryCost: 64, timeCost: 1, dangerouslyAllowWeakParameters: false }],
    ['memoryCost', { ...fast, memoryCost: 15, parallelism: 2 }],
    ['memoryCost', { ...fast, memoryCost: 64.5 }],
    ['timeCost', { ...fast, timeCost: 0 }],
    ['parallelism', { ...fast, parallelism: 17 }],
    ['hashLength', { ...fast, hashLength: 15 }],
    ['saltLength', { ...fast, saltLength: 8 }],
    ['maxMemoryCost', { memoryCost: 65536, maxMemoryCost: 65535 }],
    ['maxMemoryCost', { maxMemoryCost: 2 ** 22 + 1 }],
    ['maxTimeCost', { timeCost: 11 }],
    ['memoryCost', { memoryCost: '19456' as unknown as number }],
  ])('rejects a bad %s: %j', (option, options) => {
    expect(configurationError(() => new Argon2PasswordEncoder(options))).toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option,
    });
  });

  it.each<Argon2PasswordEncoderOptions>([
    { memoryCost: 47104, timeCost: 1 },
    { memoryCost: 12288, timeCost: 3 },
    { memoryCost: 9216, timeCost: 4 },
    { memoryCost: 7168, timeCost: 5 },
    { memoryCost: 65536, timeCost: 3, parallelism: 4 },
    { timeCost: 20, maxTimeCost: 20 },
  ])('accepts OWASP’s equivalent configuration %j', (options) => {
    expect(() => new Argon2PasswordEncoder(options)).not.toThrow();
  });

  it('does not touch the caller’s options', async () => {
    const options = Object.freeze({ ...fast });
    const stored = await new Argon2PasswordEncoder(options).encode('pw');
    expect(stored).toContain('m=64,t=1,p=1');
    expect(options).toEqual(fast);
  });
});
