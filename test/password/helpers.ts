import { expect } from 'vitest';
import { PasswordEncodingFailedError } from '../../src/password/index.js';

/** The PasswordEncodingFailedError a promise rejects with (fails the test otherwise). */
export async function encodingFailure(
  promise: Promise<unknown>,
): Promise<PasswordEncodingFailedError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PasswordEncodingFailedError);
  return error as PasswordEncodingFailedError;
}

/** The ConfigurationError (a TypeError with code and option) a function throws. */
export function configurationError(fn: () => unknown): unknown {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(TypeError);
  return caught;
}

/** Replaces the last `$` field (the hash) of a PHC string. */
export function withHash(stored: string, change: (hash: string) => string): string {
  const at = stored.lastIndexOf('$') + 1;
  return stored.slice(0, at) + change(stored.slice(at));
}

/** Replaces the next-to-last `$` field (the salt) of a PHC string. */
export function withSalt(stored: string, salt: string): string {
  const fields = stored.split('$');
  fields[fields.length - 2] = salt;
  return fields.join('$');
}

/** A different base64 character at `index` of a PHC hash field. */
export function flip(hash: string, index: number): string {
  const c = hash.at(index)!;
  return hash.slice(0, index) + (c === 'A' ? 'B' : 'A') + hash.slice(index).slice(1);
}
