/**
 * Identity provider presets: where a provider's endpoints are (its OpenID Connect
 * issuer, discovered at start-up, or explicit OAuth2 endpoints), which scopes are
 * asked for by default, how the client authenticates, and how the user's profile
 * is read.
 *
 * @module portcullis/oauth2
 */
import { ConfigurationError } from '../core/errors.js';
import { requireName } from '../core/validate.js';
import {
  domainOrigin,
  issuerOf,
  providerName,
  requireMethod,
  type ClientAuthenticationMethod,
  type OAuth2Endpoints,
  type OAuth2ProviderOptions,
  type OidcProviderOptions,
} from './provider-options.js';
import {
  APPLE,
  DISCORD,
  facebookDefinition,
  GITHUB,
  microsoftGraphDefinition,
  OIDC_SCOPES,
  oidcDefinition,
  type ProviderDefinition,
} from './provider-presets.js';
import { userInfoReader, type ProfileReader } from './profile.js';
import { checkKeys, requireScopes } from './options.js';
import { requireSecureUrl } from './urls.js';

export type {
  ClientAuthenticationMethod,
  OAuth2Endpoints,
  OAuth2ProviderOptions,
  OidcProviderOptions,
} from './provider-options.js';

const MULTI_TENANT = new Set(['common', 'organizations', 'consumers']);

/**
 * An identity provider: a preset (`OAuth2Provider.Google`, …), a configurable preset
 * (`OAuth2Provider.okta({ domain })`, …), any OpenID Provider by issuer
 * ({@link OAuth2Provider.oidc}) or any OAuth2 provider by explicit endpoints
 * ({@link OAuth2Provider.oauth2}). Immutable.
 *
 * OpenID Connect providers (`oidc: true`) are discovered when the client is created and
 * log users in with a validated ID token; plain OAuth2 providers (GitHub, Discord,
 * Facebook, multi-tenant Microsoft) identify the user through their profile API.
 *
 * @example
 * ```ts
 * new OAuth2Config(id, secret, 'https://app.example.com/login/oauth2/code/google').provider(OAuth2Provider.Google);
 * new OAuth2Config(id, secret, redirectUri).provider(OAuth2Provider.keycloak({ baseUrl: 'https://sso.example.com', realm: 'staff' }));
 * ```
 */
export class OAuth2Provider {
  /** The provider's name, the default registration id (`'google'`). */
  readonly name: string;
  /** Whether the provider speaks OpenID Connect (discovery, ID token). */
  readonly oidc: boolean;
  /** The OpenID Connect issuer, or the RFC 9207 issuer of a plain OAuth2 provider. */
  readonly issuer: string;
  /** The explicit endpoints of a plain OAuth2 provider (`undefined` for OIDC: discovered). */
  readonly endpoints: OAuth2Endpoints | undefined;
  /** The scopes asked for unless the configuration names others. */
  readonly scopes: readonly string[];
  /** The token endpoint client authentication (`undefined`: chosen from the provider's metadata). */
  readonly clientAuthentication: ClientAuthenticationMethod | undefined;
  /**
   * Scopes that make the provider answer with `response_mode=form_post` (Apple's `name`
   * and `email`): the callback then arrives as a cross-site POST.
   */
  readonly formPostScopes: readonly string[];
  /** @internal */
  readonly reader: ProfileReader | undefined;
  /** @internal Whether `email_verified` may be the string `"true"` (Apple). */
  readonly stringBooleans: boolean;

  private constructor(definition: ProviderDefinition) {
    this.name = definition.name;
    this.issuer = definition.issuer;
    this.endpoints = definition.endpoints && Object.freeze({ ...definition.endpoints });
    this.oidc = definition.endpoints === undefined;
    this.scopes = Object.freeze([...definition.scopes]);
    this.clientAuthentication = definition.clientAuthentication;
    this.formPostScopes = Object.freeze([...(definition.formPostScopes ?? [])]);
    this.reader = definition.reader;
    this.stringBooleans = definition.stringBooleans === true;
    Object.freeze(this);
  }

  /** Google (OIDC, issuer `https://accounts.google.com`), scopes `openid profile email`. */
  static readonly Google: OAuth2Provider = new OAuth2Provider(
    oidcDefinition('google', 'https://accounts.google.com'),
  );

  /**
   * GitHub (OAuth2): `GET /user`, and `GET /user/emails` for the primary verified
   * email; scopes `read:user user:email`; `client_secret_post`.
   */
  static readonly GitHub: OAuth2Provider = new OAuth2Provider(GITHUB);

  /**
   * Microsoft Entra ID, multi-tenant (`common`): see {@link OAuth2Provider.microsoft}.
   * Plain OAuth2 with Microsoft Graph `/me`, because the `common` endpoint publishes a
   * templated issuer that no ID token can be checked against.
   */
  static readonly Microsoft: OAuth2Provider = OAuth2Provider.microsoft();

  /** Facebook Login (OAuth2, Graph API v23.0): see {@link OAuth2Provider.facebook}. */
  static readonly Facebook: OAuth2Provider = OAuth2Provider.facebook();

  /**
   * Sign in with Apple (OIDC, issuer `https://appleid.apple.com`), scope `openid`,
   * `client_secret_post` with the JWT client secret of {@link appleClientSecret}.
   * Asking for `name` or `email` makes Apple answer with `response_mode=form_post`.
   */
  static readonly Apple: OAuth2Provider = new OAuth2Provider(APPLE);

  /** GitLab.com (OIDC): see {@link OAuth2Provider.gitlab} for a self-hosted GitLab. */
  static readonly GitLab: OAuth2Provider = OAuth2Provider.gitlab();

  /** Discord (OAuth2): `GET /users/@me`; scopes `identify email`; `client_secret_post`. */
  static readonly Discord: OAuth2Provider = new OAuth2Provider(DISCORD);

  /**
   * Microsoft Entra ID. With the directory (tenant) id, a GUID: OIDC with issuer
   * `https://login.microsoftonline.com/<tenant>/v2.0`, ID tokens checked against that
   * tenant. With `common`, `organizations` or `consumers` (default `common`), whose
   * discovery documents publish the templated issuer
   * `https://login.microsoftonline.com/{tenantid}/v2.0` that no ID token can be checked
   * against exactly: plain OAuth2 with scope `User.Read` and Graph `/me` (subject: the
   * Graph object id; the user's tenant is not checked; email reported unverified).
   */
  static microsoft(options: { readonly tenant?: string } = {}): OAuth2Provider {
    checkKeys('OAuth2Provider.microsoft', options, ['tenant']);
    const tenant = requireName('tenant', options.tenant ?? 'common').toLowerCase();
    if (MULTI_TENANT.has(tenant)) {
      return new OAuth2Provider(microsoftGraphDefinition(tenant));
    }
    // The discovery document of a domain-named tenant names the tenant GUID as its
    // issuer, so only the GUID matches exactly.
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u.test(tenant)) {
      throw new ConfigurationError(
        'tenant',
        'must be the directory (tenant) id, a GUID, or common, organizations or consumers',
      );
    }
    const issuer = `https://login.microsoftonline.com/${tenant}/v2.0`;
    return new OAuth2Provider(oidcDefinition('microsoft', issuer, 'client_secret_post'));
  }

  /** Facebook Login (OAuth2): Graph `/me?fields=id,name,email,picture`; scopes `public_profile email`. */
  static facebook(options: { readonly version?: string } = {}): OAuth2Provider {
    checkKeys('OAuth2Provider.facebook', options, ['version']);
    const version = options.version ?? 'v23.0';
    if (!/^v\d{1,3}\.\d{1,3}$/u.test(version)) {
      throw new ConfigurationError('version', 'must be a Graph API version like "v23.0"');
    }
    return new OAuth2Provider(facebookDefinition(version));
  }

  /** GitLab (OIDC); `issuer` of a self-hosted instance. @defaultValue issuer `https://gitlab.com` */
  static gitlab(options: { readonly issuer?: string | URL } = {}): OAuth2Provider {
    checkKeys('OAuth2Provider.gitlab', options, ['issuer']);
    const issuer = issuerOf('issuer', options.issuer ?? 'https://gitlab.com');
    return new OAuth2Provider(oidcDefinition('gitlab', issuer));
  }

  /**
   * Okta (OIDC). Without `authorizationServer`, the org authorization server (issuer
   * `https://<domain>`); with it, a custom one (`https://<domain>/oauth2/<id>`, e.g. `'default'`).
   */
  static okta(options: {
    readonly domain: string;
    readonly authorizationServer?: string;
  }): OAuth2Provider {
    checkKeys('OAuth2Provider.okta', options, ['domain', 'authorizationServer']);
    const origin = domainOrigin(options.domain);
    const server = options.authorizationServer;
    if (server !== undefined && !/^[A-Za-z0-9_-]{1,64}$/u.test(server)) {
      throw new ConfigurationError('authorizationServer', 'must be an authorization server id');
    }
    const issuer = server === undefined ? origin : `${origin}/oauth2/${server}`;
    return new OAuth2Provider(oidcDefinition('okta', issuer));
  }

  /** Auth0 (OIDC, issuer `https://<domain>/`), `client_secret_post` (Auth0's default). */
  static auth0(options: { readonly domain: string }): OAuth2Provider {
    checkKeys('OAuth2Provider.auth0', options, ['domain']);
    const issuer = `${domainOrigin(options.domain)}/`;
    return new OAuth2Provider(oidcDefinition('auth0', issuer, 'client_secret_post'));
  }

  /** Keycloak (OIDC): the realm's `issuer`, or `baseUrl` + `realm` (`<baseUrl>/realms/<realm>`). */
  static keycloak(
    options:
      | { readonly issuer: string | URL }
      | { readonly baseUrl: string | URL; readonly realm: string },
  ): OAuth2Provider {
    checkKeys('OAuth2Provider.keycloak', options, ['issuer', 'baseUrl', 'realm']);
    if ('issuer' in options) {
      if ('realm' in options || 'baseUrl' in options) {
        throw new ConfigurationError('issuer', 'give issuer, or baseUrl and realm, not both');
      }
      return new OAuth2Provider(oidcDefinition('keycloak', issuerOf('issuer', options.issuer)));
    }
    const base = issuerOf('baseUrl', options.baseUrl).replace(/\/+$/u, '');
    const realm = requireName('realm', options.realm);
    const issuer = `${base}/realms/${encodeURIComponent(realm)}`;
    return new OAuth2Provider(oidcDefinition('keycloak', issuer));
  }

  /** Any OpenID Provider by its issuer (discovery at client creation). */
  static oidc(options: OidcProviderOptions): OAuth2Provider {
    checkKeys('OAuth2Provider.oidc', options, ['issuer', 'name', 'scopes', 'clientAuthentication']);
    const scopes = requireScopes('scopes', options.scopes ?? OIDC_SCOPES);
    if (!scopes.includes('openid')) {
      throw new ConfigurationError('scopes', 'an OpenID Connect provider needs the "openid" scope');
    }
    return new OAuth2Provider({
      name: providerName(options.name ?? 'oidc'),
      issuer: issuerOf('issuer', options.issuer),
      endpoints: undefined,
      scopes,
      clientAuthentication: requireMethod(options.clientAuthentication),
      reader: undefined,
    });
  }

  /** Any plain OAuth2 provider by its endpoints and a profile endpoint. */
  static oauth2(options: OAuth2ProviderOptions): OAuth2Provider {
    checkKeys('OAuth2Provider.oauth2', options, [
      'name',
      'authorizationEndpoint',
      'tokenEndpoint',
      'userInfoEndpoint',
      'issuer',
      'scopes',
      'clientAuthentication',
      'profile',
    ]);
    const authorization = requireSecureUrl('authorizationEndpoint', options.authorizationEndpoint);
    const userInfo = requireSecureUrl('userInfoEndpoint', options.userInfoEndpoint).href;
    if (options.profile !== undefined && typeof options.profile !== 'function') {
      throw new ConfigurationError('profile', 'must be a function of the profile JSON');
    }
    return new OAuth2Provider({
      name: providerName(options.name),
      issuer:
        options.issuer === undefined ? authorization.origin : requireName('issuer', options.issuer),
      endpoints: {
        authorization: authorization.href,
        token: requireSecureUrl('tokenEndpoint', options.tokenEndpoint).href,
        userInfo,
      },
      scopes: requireScopes('scopes', options.scopes ?? [], true),
      clientAuthentication: requireMethod(options.clientAuthentication) ?? 'client_secret_basic',
      reader: userInfoReader(userInfo, options.profile),
    });
  }
}
