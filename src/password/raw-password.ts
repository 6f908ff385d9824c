import { requireInteger } from '../core/validate.js';
import { PasswordEncodingFailedError } from './errors.js';

/** The default of `maxPasswordLength`. @internal */
export const DEFAULT_MAX_PASSWORD_LENGTH = 4096;

/** A lone surrogate: with the `u` flag a well-formed pair is one code point and does not match. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Validates the `maxPasswordLength` option. @internal */
export function maxPasswordLengthOption(value: number | undefined): number {
  return value === undefined
    ? DEFAULT_MAX_PASSWORD_LENGTH
    : requireInteger('maxPasswordLength', value, 1, 1_048_576);
}

/**
 * Whether a raw password may be hashed: a well-formed string no longer than
 * `maxLength` code units. @internal
 */
export function isAcceptablePassword(raw: unknown, maxLength: number): raw is string {
  return typeof raw === 'string' && raw.length <= maxLength && !LONE_SURROGATE.test(raw);
}

/**
 * Throws a {@link PasswordEncodingFailedError} unless the raw password may be
 * hashed. The message never contains the password. @internal
 */
export function requirePassword(raw: unknown, maxLength: number): string {
  if (typeof raw !== 'string') {
    throw new PasswordEncodingFailedError(
      'ERR_PASSWORD_MALFORMED',
      'The password must be a string',
    );
  }
  if (raw.length > maxLength) {
    throw new PasswordEncodingFailedError(
      'ERR_PASSWORD_TOO_LONG',
      `The password is longer than ${maxLength} characters`,
    );
  }
  if (LONE_SURROGATE.test(raw)) {
    throw new PasswordEncodingFailedError(
      'ERR_PASSWORD_MALFORMED',
      'The password is not well-formed UTF-16 (it contains a lone surrogate)',
    );
  }
  return raw;
}

/** Wraps a failure of the hash function. @internal */
export function hashFailed(algorithm: string, cause: unknown): PasswordEncodingFailedError {
  return new PasswordEncodingFailedError(
    'ERR_PASSWORD_HASH_FAILED',
    `${algorithm} hashing failed`,
    { cause },
  );
}
