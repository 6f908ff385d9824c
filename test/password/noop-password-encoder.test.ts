import { describe, expect, it } from 'vitest';
import { NoOpPasswordEncoder } from '../../src/password/index.js';
import { passwordEncoderContract } from './encoder-contract.js';

passwordEncoderContract('NoOpPasswordEncoder', (options) => new NoOpPasswordEncoder(options), {
  // stores the password as it is
  format: /^s3cret$/,
  salted: false,
  // nothing is malformed plain text, and there is nothing to upgrade to
  upgradesMalformed: false,
  malformed: [],
});

describe('NoOpPasswordEncoder (tests only)', () => {
  const encoder = new NoOpPasswordEncoder();

  it.each([
    ['s3cret', 's3creT'],
    ['s3cret', 's3cret '],
    ['', 's3cret'],
    ['s3cret', ''],
    ['é', 'e\u0301'],
    ['\uD800', '\uDFFF'],
    ['\uD800', '\uD800'],
  ])('does not match %j against the stored %j', async (raw, stored) => {
    expect(await encoder.matches(raw, stored)).toBe(false);
    expect(encoder.upgradeEncoding(stored)).toBe(false);
  });
});
