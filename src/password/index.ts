/**
 * Password encoders on `node:crypto`: scrypt, PBKDF2, the `{id}`-prefixed
 * delegating encoder and a plain-text encoder for tests. Argon2id lives in
 * `portcullis/argon2` so this entry loads no native module.
 *
 * @module portcullis
 */
export {
  DelegatingPasswordEncoder,
  type DelegatingPasswordEncoderOptions,
} from './delegating-password-encoder.js';
export {
  PasswordEncodingError,
  PasswordEncodingFailedError,
  type PasswordEncodingErrorCode,
  type PasswordEncodingFailureCode,
} from './errors.js';
export { NoOpPasswordEncoder, type NoOpPasswordEncoderOptions } from './noop-password-encoder.js';
export type { PasswordEncoder, RawPasswordOptions } from './password-encoder.js';
export {
  Pbkdf2PasswordEncoder,
  type Pbkdf2Algorithm,
  type Pbkdf2PasswordEncoderOptions,
} from './pbkdf2-password-encoder.js';
export {
  ScryptPasswordEncoder,
  type ScryptPasswordEncoderOptions,
} from './scrypt-password-encoder.js';
