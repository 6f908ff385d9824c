import type { ClientAuthenticationMethod, OAuth2Endpoints } from './provider-options.js';
import {
  discordReader,
  facebookReader,
  githubReader,
  microsoftGraphReader,
  type ProfileReader,
} from './profile.js';

/** The data behind an `OAuth2Provider`. @internal */
export interface ProviderDefinition {
  readonly name: string;
  readonly issuer: string;
  /** Explicit endpoints (plain OAuth2); `undefined` for OpenID Connect (discovered). */
  readonly endpoints: OAuth2Endpoints | undefined;
  readonly scopes: readonly string[];
  readonly clientAuthentication: ClientAuthenticationMethod | undefined;
  readonly reader: ProfileReader | undefined;
  readonly stringBooleans?: boolean;
  readonly formPostScopes?: readonly string[];
}

/** The default scopes of OpenID Connect presets. @internal */
export const OIDC_SCOPES: readonly string[] = Object.freeze(['openid', 'profile', 'email']);

/** An OpenID Connect provider known by its issuer. @internal */
export function oidcDefinition(
  name: string,
  issuer: string,
  clientAuthentication: ClientAuthenticationMethod = 'client_secret_basic',
): ProviderDefinition {
  return {
    name,
    issuer,
    endpoints: undefined,
    scopes: OIDC_SCOPES,
    clientAuthentication,
    reader: undefined,
  };
}

/** GitHub sends `iss=https://github.com/login/oauth` in its authorization responses. @internal */
export const GITHUB: ProviderDefinition = {
  name: 'github',
  issuer: 'https://github.com/login/oauth',
  endpoints: {
    authorization: 'https://github.com/login/oauth/authorize',
    token: 'https://github.com/login/oauth/access_token',
    userInfo: 'https://api.github.com/user',
  },
  scopes: ['read:user', 'user:email'],
  clientAuthentication: 'client_secret_post',
  reader: githubReader('https://api.github.com'),
};

/** @internal */
export const DISCORD: ProviderDefinition = {
  name: 'discord',
  issuer: 'https://discord.com',
  endpoints: {
    authorization: 'https://discord.com/oauth2/authorize',
    token: 'https://discord.com/api/oauth2/token',
    userInfo: 'https://discord.com/api/users/@me',
  },
  scopes: ['identify', 'email'],
  clientAuthentication: 'client_secret_post',
  reader: discordReader('https://discord.com/api'),
};

/** Apple: OIDC, `email_verified` sometimes a string, `form_post` for `name`/`email`. @internal */
export const APPLE: ProviderDefinition = {
  ...oidcDefinition('apple', 'https://appleid.apple.com', 'client_secret_post'),
  scopes: ['openid'],
  stringBooleans: true,
  formPostScopes: ['name', 'email'],
};

/** Microsoft's multi-tenant endpoints, read through Microsoft Graph. @internal */
export function microsoftGraphDefinition(tenant: string): ProviderDefinition {
  const base = `https://login.microsoftonline.com/${tenant}/oauth2/v2.0`;
  return {
    name: 'microsoft',
    issuer: `https://login.microsoftonline.com/${tenant}/v2.0`,
    endpoints: {
      authorization: `${base}/authorize`,
      token: `${base}/token`,
      userInfo: 'https://graph.microsoft.com/v1.0/me',
    },
    scopes: ['User.Read'],
    clientAuthentication: 'client_secret_post',
    reader: microsoftGraphReader(),
  };
}

/** Facebook Login with one Graph API version. @internal */
export function facebookDefinition(version: string): ProviderDefinition {
  return {
    name: 'facebook',
    issuer: 'https://www.facebook.com',
    endpoints: {
      authorization: `https://www.facebook.com/${version}/dialog/oauth`,
      token: `https://graph.facebook.com/${version}/oauth/access_token`,
      userInfo: `https://graph.facebook.com/${version}/me`,
    },
    scopes: ['public_profile', 'email'],
    clientAuthentication: 'client_secret_post',
    reader: facebookReader(`https://graph.facebook.com/${version}`),
  };
}
