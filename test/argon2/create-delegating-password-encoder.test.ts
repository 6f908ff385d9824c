import { describe, expect, it } from 'vitest';
import { Argon2PasswordEncoder, createDelegatingPasswordEncoder } from '../../src/argon2/index.js';
import { SecurityEvents, type UnknownPasswordEncoderEvent } from '../../src/core/events.js';
import { Pbkdf2PasswordEncoder, ScryptPasswordEncoder } from '../../src/password/index.js';
import { passwordEncoderContract } from '../password/encoder-contract.js';

const fastOptions = {
  argon2: { memoryCost: 64, timeCost: 1, dangerouslyAllowWeakParameters: true },
  scrypt: { cost: 2 ** 10, dangerouslyAllowWeakParameters: true },
  pbkdf2: { iterations: 1000, dangerouslyAllowWeakParameters: true },
} as const;

passwordEncoderContract(
  'createDelegatingPasswordEncoder()',
  (options) =>
    createDelegatingPasswordEncoder({
      ...fastOptions,
      argon2: { ...fastOptions.argon2, ...options },
      events: new SecurityEvents(),
    }),
  {
    format: /^\{argon2\}\$argon2id\$v=19\$m=64,t=1,p=1\$[^$]{22}\$[^$]{43}$/,
    salted: true,
    upgradesMalformed: true,
    malformed: ['', 's3cret', '{noop}s3cret', '{argon2}', '{argon2}$argon2id$', '{scrypt}s3cret'],
  },
);

describe('createDelegatingPasswordEncoder', () => {
  it('encodes {argon2} Argon2id with OWASP’s parameters by default', async () => {
    const encoder = createDelegatingPasswordEncoder();
    expect(encoder.ids).toEqual(['argon2', 'scrypt', 'pbkdf2']);
    expect(encoder.defaultId).toBe('argon2');
    const stored = await encoder.encode('s3cret');
    expect(stored).toMatch(/^\{argon2\}\$argon2id\$v=19\$m=19456,t=2,p=1\$[^$]{22}\$[^$]{43}$/);
    expect(await encoder.matches('s3cret', stored)).toBe(true);
    expect(encoder.upgradeEncoding(stored)).toBe(false);
  });

  it('verifies {scrypt} and {pbkdf2} hashes and asks to upgrade them to {argon2}', async () => {
    const encoder = createDelegatingPasswordEncoder(fastOptions);
    const legacy = [
      `{scrypt}${await new ScryptPasswordEncoder(fastOptions.scrypt).encode('s3cret')}`,
      `{pbkdf2}${await new Pbkdf2PasswordEncoder(fastOptions.pbkdf2).encode('s3cret')}`,
    ];
    for (const stored of legacy) {
      expect(await encoder.matches('s3cret', stored)).toBe(true);
      expect(await encoder.matches('s3cret?', stored)).toBe(false);
      expect(encoder.upgradeEncoding(stored)).toBe(true);
    }
    const upgraded = await encoder.encode('s3cret');
    expect(upgraded).toMatch(/^\{argon2\}\$argon2id\$v=19\$m=64,t=1,p=1\$/);
    expect(encoder.upgradeEncoding(upgraded)).toBe(false);
  });

  it('asks to upgrade {argon2} hashes weaker than the configured parameters', async () => {
    const encoder = createDelegatingPasswordEncoder({
      ...fastOptions,
      argon2: { ...fastOptions.argon2, memoryCost: 128 },
    });
    const weaker = `{argon2}${await new Argon2PasswordEncoder(fastOptions.argon2).encode('pw')}`;
    expect(await encoder.matches('pw', weaker)).toBe(true);
    expect(encoder.upgradeEncoding(weaker)).toBe(true);
  });

  it('does not register {noop}: plain-text hashes never match, and are reported', async () => {
    const events = new SecurityEvents();
    const seen: UnknownPasswordEncoderEvent[] = [];
    events.on('unknown-password-encoder', (event) => {
      seen.push(event);
    });
    const encoder = createDelegatingPasswordEncoder({ ...fastOptions, events });
    expect(await encoder.matches('s3cret', '{noop}s3cret')).toBe(false);
    expect(await encoder.matches('s3cret', 's3cret')).toBe(false);
    expect(await encoder.matches('s3cret', '{bcrypt}$2a$10$abcdefghijklmnopqrstuu')).toBe(false);
    expect(seen.map((e) => e.id)).toEqual(['noop', null, 'bcrypt']);
  });

  it('validates the options of each encoder', () => {
    expect(() => createDelegatingPasswordEncoder({ argon2: { memoryCost: 1024 } })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'memoryCost' }),
    );
    expect(() => createDelegatingPasswordEncoder({ pbkdf2: { iterations: 1 } })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'iterations' }),
    );
  });
});
