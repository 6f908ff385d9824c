/**
 * Sessions on iron-sealed cookies (`iron-session`, an optional peer): the
 * `SessionConfig`, the `SessionAuthenticator` with login, logout, revocation and
 * CSRF protection, form login and logout handlers, and a safe redirect check.
 *
 * @module portcullis/session
 */
export {
  SessionAuthenticator,
  SessionTooLargeError,
  type CsrfTokenResult,
  type SessionAuthenticatorOptions,
} from './authenticator.js';
export { SessionConfig, type SameSite, type SessionConfigOptions } from './config.js';
export type { StoredUser } from './codec.js';
export type { CsrfFailure } from './csrf.js';
export {
  formLogin,
  formLogout,
  type CredentialsVerifier,
  type FormLoginOptions,
  type FormLogoutOptions,
} from './form-login.js';
export { safeRedirectTarget } from '../http/redirect.js';
export type { RequestLike } from './request.js';
export {
  MemorySessionStore,
  SessionStoreFullError,
  type MemorySessionStoreOptions,
  type SessionStore,
} from './store.js';
