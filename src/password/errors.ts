import { PasswordEncodingError } from '../core/errors.js';

/**
 * Why a {@link PasswordEncoder} refused to encode:
 *
 * - `invalid-password`: the raw password is not a string, or is not well-formed
 *   UTF-16 (it holds a lone surrogate, which UTF-8 would silently turn into U+FFFD);
 * - `password-too-long`: the raw password is longer than `maxPasswordLength`;
 * - `no-default-encoder`: a {@link DelegatingPasswordEncoder} has no default id;
 * - `hash-failed`: the hash function itself failed (see `cause`).
 */
export type PasswordEncodingFailureReason =
  'invalid-password' | 'password-too-long' | 'no-default-encoder' | 'hash-failed';

/**
 * A password could not be encoded. A {@link PasswordEncodingError} (`code`
 * `ERR_PASSWORD_ENCODING`) with the machine-readable `reason`. The message never
 * contains the password.
 *
 * @example
 * ```ts
 * try {
 *   await encoder.encode(input);
 * } catch (error) {
 *   if (error instanceof PasswordEncodingFailedError && error.reason === 'password-too-long') {
 *     // tell the user the password is too long
 *   }
 * }
 * ```
 */
export class PasswordEncodingFailedError extends PasswordEncodingError {
  /** Why encoding failed; stable, branch on it. */
  readonly reason: PasswordEncodingFailureReason;

  constructor(reason: PasswordEncodingFailureReason, message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}
