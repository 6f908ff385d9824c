/**
 * OAuth2 and OpenID Connect login on `oauth4webapi` (an optional peer), which does
 * every protocol check: providers (`OAuth2Provider`), their registrations
 * (`OAuth2Config`), clients (`OAuth2Client`, `OAuth2ClientRepository`), and the
 * shared contract (`OAuth2User`, `OAuth2Tokens`, `OAuth2Error`).
 *
 * @module portcullis/oauth2
 */
export { appleClientSecret, type AppleClientSecretOptions } from './apple.js';
export { OAuth2Client } from './client.js';
export { OAuth2Config, type OAuth2ClientSecret, type OAuth2ConfigOptions } from './config.js';
export { OAuth2Error, type OAuth2ErrorCode } from './errors.js';
export type { OAuth2ProfileFields } from './profile.js';
export {
  OAuth2Provider,
  type ClientAuthenticationMethod,
  type OAuth2Endpoints,
  type OAuth2ProviderOptions,
  type OidcProviderOptions,
} from './providers.js';
export { OAuth2ClientRepository } from './repository.js';
export type { OAuth2ClientOptions, OAuth2Fetch } from './transport.js';
export type {
  OAuth2ClientLike,
  OAuth2Expectations,
  OAuth2LoginResult,
  OAuth2Tokens,
  OAuth2User,
} from './types.js';
export { oauth2Login } from './routes/login.js';
export {
  defaultOAuth2UserMapper,
  type OAuth2ClientSource,
  type OAuth2LoginOptions,
  type OAuth2LoginSessions,
  type OAuth2MapperContext,
  type OAuth2UserMapper,
} from './routes/options.js';
export {
  MemoryOAuth2AccountRepository,
  accountLinkingMapper,
  type AccountLinkingOptions,
  type MemoryOAuth2AccountRepositoryOptions,
  type OAuth2AccountRepository,
  type OAuth2UserCreator,
} from './account-linking.js';
export {
  SqlOAuth2AccountRepository,
  sqlOAuth2AccountSchema,
  type SqlOAuth2AccountRepositoryOptions,
  type SqlOAuth2AccountTables,
} from './sql-account-repository.js';
