import { ConfigurationError } from '../core/errors.js';
import { requireName } from '../core/validate.js';
import type { OAuth2ProfileFields } from './profile.js';
import { requireSecureUrl } from './urls.js';

/** How the client authenticates at the token endpoint (RFC 6749 §2.3.1). */
export type ClientAuthenticationMethod = 'client_secret_basic' | 'client_secret_post';

/** The explicit endpoints of a plain OAuth2 provider. */
export interface OAuth2Endpoints {
  readonly authorization: string;
  readonly token: string;
  /** The profile endpoint read with the access token, when the provider has one. */
  readonly userInfo: string | undefined;
}

/** Options of {@link OAuth2Provider.oidc}. */
export interface OidcProviderOptions {
  /** The issuer identifier; discovery reads `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string | URL;
  /** The provider's name, the default registration id. @defaultValue `'oidc'` */
  readonly name?: string;
  /** @defaultValue `['openid', 'profile', 'email']` */
  readonly scopes?: readonly string[];
  /**
   * @defaultValue `'client_secret_basic'`, or `'client_secret_post'` when the provider's
   * metadata lists only that one
   */
  readonly clientAuthentication?: ClientAuthenticationMethod;
}

/** Options of {@link OAuth2Provider.oauth2}. */
export interface OAuth2ProviderOptions {
  /** The provider's name, the default registration id. */
  readonly name: string;
  readonly authorizationEndpoint: string | URL;
  readonly tokenEndpoint: string | URL;
  /** The JSON profile endpoint, read with the access token (`Authorization: Bearer`). */
  readonly userInfoEndpoint: string | URL;
  /**
   * The provider's RFC 9207 issuer identifier: an `iss` in the authorization response
   * must equal it. @defaultValue the authorization endpoint's origin
   */
  readonly issuer?: string;
  /** @defaultValue `[]` (the provider's own default) */
  readonly scopes?: readonly string[];
  /** @defaultValue `'client_secret_basic'` */
  readonly clientAuthentication?: ClientAuthenticationMethod;
  /**
   * Maps the profile JSON to the identity fields.
   * @defaultValue `sub` (or `id`), `email`, `email_verified === true`, `name`, `picture`
   */
  readonly profile?: (data: Readonly<Record<string, unknown>>) => OAuth2ProfileFields;
}

/** Reads an issuer identifier (kept as written: a trailing slash matters). @internal */
export function issuerOf(option: string, value: unknown): string {
  const url = requireSecureUrl(option, value);
  if (url.search !== '') throw new ConfigurationError(option, 'must not contain a query');
  // The issuer is an identifier, compared as written (a trailing slash matters).
  return typeof value === 'string' ? value : url.href;
}

/** `https://<domain>` from a bare host name. @internal */
export function domainOrigin(domain: unknown): string {
  const value = requireName('domain', domain);
  const url = URL.parse(`https://${value}`);
  if (url === null || url.host !== value.toLowerCase() || url.pathname !== '/') {
    throw new ConfigurationError('domain', 'must be a host name like "example.okta.com"');
  }
  return url.origin;
}

/** A provider name, usable as a registration id. @internal */
export function providerName(name: unknown): string {
  const value = requireName('name', name);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/u.test(value)) {
    throw new ConfigurationError('name', 'must be 1-64 letters, digits, ".", "_" or "-"');
  }
  return value;
}

/** A supported client authentication method, or `undefined`. @internal */
export function requireMethod(method: unknown): ClientAuthenticationMethod | undefined {
  if (method === undefined) return undefined;
  if (method !== 'client_secret_basic' && method !== 'client_secret_post') {
    throw new ConfigurationError(
      'clientAuthentication',
      'must be "client_secret_basic" or "client_secret_post"',
    );
  }
  return method;
}
