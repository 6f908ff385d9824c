import { PortcullisError } from '../core/errors.js';

/**
 * Why a {@link PasswordEncoder} refused to encode, one stable code per failure:
 *
 * - `ERR_PASSWORD_MALFORMED`: the raw password is not a string, or is not
 *   well-formed UTF-16 (it holds a lone surrogate, which UTF-8 would silently turn
 *   into U+FFFD);
 * - `ERR_PASSWORD_TOO_LONG`: the raw password is longer than `maxPasswordLength`;
 * - `ERR_PASSWORD_NO_DEFAULT_ENCODER`: a {@link DelegatingPasswordEncoder} has no
 *   default id;
 * - `ERR_PASSWORD_HASH_FAILED`: the hash function itself failed (see `cause`).
 */
export type PasswordEncodingFailureCode =
  | 'ERR_PASSWORD_MALFORMED'
  | 'ERR_PASSWORD_TOO_LONG'
  | 'ERR_PASSWORD_NO_DEFAULT_ENCODER'
  | 'ERR_PASSWORD_HASH_FAILED';

/**
 * The stable codes of {@link PasswordEncodingError}: `ERR_PASSWORD_ENCODING` for an
 * error made with only a message (as a custom encoder may throw), else one of
 * {@link PasswordEncodingFailureCode}.
 */
export type PasswordEncodingErrorCode = 'ERR_PASSWORD_ENCODING' | PasswordEncodingFailureCode;

const CODES: ReadonlySet<unknown> = new Set<PasswordEncodingErrorCode>([
  'ERR_PASSWORD_ENCODING',
  'ERR_PASSWORD_MALFORMED',
  'ERR_PASSWORD_TOO_LONG',
  'ERR_PASSWORD_NO_DEFAULT_ENCODER',
  'ERR_PASSWORD_HASH_FAILED',
]);

/**
 * Whether `error` is a password-encoding failure: a {@link PasswordEncodingError},
 * or any object whose `code` is one of {@link PasswordEncodingErrorCode} (a custom
 * encoder's own error, or one from another copy of portcullis).
 *
 * @internal
 */
export function isPasswordEncodingError(error: unknown): boolean {
  if (error instanceof PasswordEncodingError) return true;
  return (
    typeof error === 'object' && error !== null && CODES.has((error as { code?: unknown }).code)
  );
}

/**
 * A password could not be encoded: the error of the password area. portcullis's
 * encoders throw its subclass {@link PasswordEncodingFailedError}, whose `code`
 * names the failure; `new PasswordEncodingError(message)` (for a custom
 * {@link PasswordEncoder}) has `code` `ERR_PASSWORD_ENCODING`. The message never
 * contains the password.
 */
export class PasswordEncodingError extends PortcullisError {
  override readonly code: PasswordEncodingErrorCode = 'ERR_PASSWORD_ENCODING';
}

/**
 * A password could not be encoded, with the failure's stable `code` (see
 * {@link PasswordEncodingFailureCode}). The message never contains the password.
 *
 * @example
 * ```ts
 * try {
 *   await encoder.encode(input);
 * } catch (error) {
 *   if (error instanceof PasswordEncodingError && error.code === 'ERR_PASSWORD_TOO_LONG') {
 *     // tell the user the password is too long
 *   }
 * }
 * ```
 */
export class PasswordEncodingFailedError extends PasswordEncodingError {
  /** Why encoding failed; stable, branch on it. */
  override readonly code: PasswordEncodingFailureCode;

  constructor(code: PasswordEncodingFailureCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
