/**
 * Authentication: users held in memory, checked with HTTP Basic (RFC 7617), and
 * the composition of authenticators.
 *
 * @module portcullis
 */
export type { AnyOfOptions } from './any-of.js';
export { AuthenticationManager } from './authentication-manager.js';
export {
  DEFAULT_MAX_BASIC_HEADER_LENGTH,
  parseBasicCredentials,
  type BasicCredentialsFailureReason,
  type BasicCredentialsResult,
  type ParseBasicCredentialsOptions,
} from './http-basic.js';
export { MemoryAuthenticator, type VerifyCredentialsOptions } from './memory-authenticator.js';
export type { CredentialCacheOptions, MemoryAuthenticatorOptions } from './memory-options.js';
