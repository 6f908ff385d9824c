/**
 * Authentication: HTTP Basic (RFC 7617) and username/password logins against a user
 * repository or users held in memory, and the composition of authenticators.
 *
 * @module portcullis
 */
export type { AnyOfOptions } from './any-of.js';
export { AuthenticationManager } from './authentication-manager.js';
export type {
  CredentialCacheOptions,
  PasswordAuthenticatorOptions,
  RepositoryAuthenticatorOptions,
} from './authenticator-options.js';
export {
  DEFAULT_MAX_BASIC_HEADER_LENGTH,
  parseBasicCredentials,
  type BasicCredentialsFailureReason,
  type BasicCredentialsResult,
  type ParseBasicCredentialsOptions,
} from './http-basic.js';
export { MemoryAuthenticator } from './memory-authenticator.js';
export type { MemoryAuthenticatorOptions } from './memory-options.js';
export {
  RepositoryAuthenticator,
  type VerifyCredentialsOptions,
} from './repository-authenticator.js';
