/**
 * JWT bearer authentication and a token service on `jose` (an optional peer):
 * `JwtConfig`, `Claims`, `JwtAuthenticator`, `JwtTokenService` and `JwtError`.
 * Nothing here parses, signs or verifies a JOSE object by hand.
 *
 * @module portcullis/jwt
 */
export { JwtAuthenticator, type JwtAuthenticatorOptions } from './authenticator.js';
export { Claims, REGISTERED_CLAIMS, type ClaimsSet } from './claims.js';
export {
  JwtConfig,
  type ClaimReader,
  type JwksOptions,
  type JwtCacheOptions,
  type JwtConfigOptions,
} from './config.js';
export { JwtError, type JwtErrorCode } from './errors.js';
export type { JsonWebKeyInput, JwtAlgorithm, JwtKeyInput } from './keys.js';
export type { VerifiedToken } from './verify.js';
export {
  MemoryRefreshTokenStore,
  type MemoryRefreshTokenStoreOptions,
} from './memory-refresh-store.js';
export {
  RefreshStoreFullError,
  type RefreshRotation,
  type RefreshTokenStore,
  type RevocationState,
  type RotationOutcome,
} from './refresh-store.js';
export { toTokenResponse, type TokenPair, type TokenResponse } from './token-pair.js';
export { JwtTokenService } from './token-service.js';
export { tokenEndpoints, type TokenEndpoints } from './token-routes/routes.js';
export type { TokenEndpointsOptions } from './token-routes/options.js';
export type {
  TokenEndpointError,
  TokenErrorCode,
  TokenErrorFormatter,
} from './token-routes/responses.js';
export type { JwtTokenServiceOptions, LoadUser, RefreshOptions } from './token-service-options.js';
