/**
 * `portcullis/argon2`: the Argon2id password encoder (through the `argon2`
 * package, a native module) and the recommended delegating encoder.
 *
 * @module portcullis/argon2
 */
export type { Argon2PasswordEncoderOptions } from './argon2-options.js';
export { Argon2PasswordEncoder } from './argon2-password-encoder.js';
export {
  createDelegatingPasswordEncoder,
  type CreateDelegatingPasswordEncoderOptions,
} from './create-delegating-password-encoder.js';
