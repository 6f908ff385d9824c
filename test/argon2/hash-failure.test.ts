import { describe, expect, it, vi } from 'vitest';

vi.mock('argon2', async (importOriginal) => {
  const argon2 = await importOriginal<typeof import('argon2')>();
  return {
    ...argon2,
    hash: () => Promise.reject(new Error('Memory allocation error')),
  };
});

const { Argon2PasswordEncoder } = await import('../../src/argon2/index.js');
const { PasswordEncodingFailedError } = await import('../../src/password/index.js');

describe('Argon2PasswordEncoder when the native hash fails', () => {
  const encoder = new Argon2PasswordEncoder();

  it('encode throws a PasswordEncodingFailedError (ERR_PASSWORD_HASH_FAILED) with the cause', async () => {
    const error: unknown = await encoder.encode('s3cret').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PasswordEncodingFailedError);
    expect(error).toMatchObject({ code: 'ERR_PASSWORD_HASH_FAILED' });
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('matches resolves false instead of throwing', async () => {
    const stored =
      '$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4';
    expect(await encoder.matches('password', stored)).toBe(false);
  });
});
