import { describe, expect, it } from 'vitest';
import { NoOpPasswordEncoder } from '../../src/password/index.js';
import { configurationError, encodingFailure } from './helpers.js';

describe('NoOpPasswordEncoder (tests only)', () => {
  const encoder = new NoOpPasswordEncoder();

  it('stores the password as it is and matches it exactly', async () => {
    expect(await encoder.encode('s3cret')).toBe('s3cret');
    expect(await encoder.matches('s3cret', 's3cret')).toBe(true);
    expect(await encoder.matches('', '')).toBe(true);
    expect(encoder.upgradeEncoding('s3cret')).toBe(false);
  });

  it.each([
    ['s3cret', 's3creT'],
    ['s3cret', 's3cret '],
    ['s3cret', 's3cre'],
    ['', 's3cret'],
    ['s3cret', ''],
    ['é', 'e\u0301'],
    ['\uD800', '\uDFFF'],
  ])('does not match %j against %j', async (raw, stored) => {
    expect(await encoder.matches(raw, stored)).toBe(false);
  });

  it('never matches non-strings', async () => {
    for (const bad of [undefined, null, 0, {}, ['s3cret']]) {
      expect(await encoder.matches(bad as string, 'undefined')).toBe(false);
      expect(await encoder.matches('null', bad as string)).toBe(false);
    }
  });

  it('caps the password length like every encoder', async () => {
    const capped = new NoOpPasswordEncoder({ maxPasswordLength: 4 });
    expect(await capped.matches('abcde', 'abcde')).toBe(false);
    expect((await encodingFailure(capped.encode('abcde'))).reason).toBe('password-too-long');
    expect((await encodingFailure(encoder.encode('x'.repeat(4097)))).reason).toBe(
      'password-too-long',
    );
    expect((await encodingFailure(encoder.encode(1 as unknown as string))).reason).toBe(
      'invalid-password',
    );
  });

  it('validates maxPasswordLength', () => {
    expect(
      configurationError(() => new NoOpPasswordEncoder({ maxPasswordLength: 0 })),
    ).toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option: 'maxPasswordLength',
    });
  });
});
