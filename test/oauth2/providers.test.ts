import { generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { appleClientSecret, OAuth2Provider } from '../../src/oauth2/index.js';

const OIDC_SCOPES = ['openid', 'profile', 'email'];

function configError(run: () => unknown, option: string) {
  expect(run).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTION', option }) as Error);
}

describe('OAuth2Provider presets', () => {
  it.each([
    [
      'Google',
      OAuth2Provider.Google,
      'google',
      'https://accounts.google.com',
      'client_secret_basic',
    ],
    ['Apple', OAuth2Provider.Apple, 'apple', 'https://appleid.apple.com', 'client_secret_post'],
    ['GitLab', OAuth2Provider.GitLab, 'gitlab', 'https://gitlab.com', 'client_secret_basic'],
  ] as const)(
    '%s speaks OpenID Connect (discovered issuer)',
    (_n, provider, name, issuer, auth) => {
      expect(provider).toMatchObject({
        name,
        oidc: true,
        issuer,
        endpoints: undefined,
        clientAuthentication: auth,
      });
      expect(provider.scopes).toEqual(name === 'apple' ? ['openid'] : OIDC_SCOPES);
    },
  );

  it('GitHub: OAuth2 endpoints, RFC 9207 issuer, user:email for the verified email', () => {
    expect(OAuth2Provider.GitHub).toMatchObject({
      name: 'github',
      oidc: false,
      issuer: 'https://github.com/login/oauth',
      endpoints: {
        authorization: 'https://github.com/login/oauth/authorize',
        token: 'https://github.com/login/oauth/access_token',
        userInfo: 'https://api.github.com/user',
      },
      scopes: ['read:user', 'user:email'],
      clientAuthentication: 'client_secret_post',
    });
  });

  it('Discord and Facebook: OAuth2 endpoints and profile APIs', () => {
    expect(OAuth2Provider.Discord).toMatchObject({
      name: 'discord',
      oidc: false,
      endpoints: {
        authorization: 'https://discord.com/oauth2/authorize',
        token: 'https://discord.com/api/oauth2/token',
        userInfo: 'https://discord.com/api/users/@me',
      },
      scopes: ['identify', 'email'],
    });
    expect(OAuth2Provider.Facebook).toMatchObject({
      name: 'facebook',
      oidc: false,
      endpoints: {
        authorization: 'https://www.facebook.com/v23.0/dialog/oauth',
        token: 'https://graph.facebook.com/v23.0/oauth/access_token',
        userInfo: 'https://graph.facebook.com/v23.0/me',
      },
      scopes: ['public_profile', 'email'],
    });
    expect(OAuth2Provider.facebook({ version: 'v19.0' }).endpoints?.token).toBe(
      'https://graph.facebook.com/v19.0/oauth/access_token',
    );
    configError(() => OAuth2Provider.facebook({ version: '19' }), 'version');
  });

  it('Microsoft: OIDC for one tenant, Graph OAuth2 for the multi-tenant endpoints', () => {
    const tenant = '9188040d-6c67-4c5b-b112-36a304b66dad';
    expect(OAuth2Provider.microsoft({ tenant })).toMatchObject({
      name: 'microsoft',
      oidc: true,
      issuer: `https://login.microsoftonline.com/${tenant}/v2.0`,
      scopes: OIDC_SCOPES,
    });
    expect(OAuth2Provider.microsoft({ tenant: tenant.toUpperCase() }).issuer).toBe(
      `https://login.microsoftonline.com/${tenant}/v2.0`,
    );
    // A domain-named tenant's discovery document names the GUID: refused at configuration.
    configError(() => OAuth2Provider.microsoft({ tenant: 'contoso.onmicrosoft.com' }), 'tenant');
    for (const multi of ['common', 'organizations', 'consumers', 'Common']) {
      expect(OAuth2Provider.microsoft({ tenant: multi })).toMatchObject({
        oidc: false,
        scopes: ['User.Read'],
        endpoints: {
          authorization: `https://login.microsoftonline.com/${multi.toLowerCase()}/oauth2/v2.0/authorize`,
          token: `https://login.microsoftonline.com/${multi.toLowerCase()}/oauth2/v2.0/token`,
          userInfo: 'https://graph.microsoft.com/v1.0/me',
        },
      });
    }
    expect(OAuth2Provider.Microsoft.endpoints?.authorization).toContain('/common/');
    configError(() => OAuth2Provider.microsoft({ tenant: '../evil' }), 'tenant');
    configError(() => OAuth2Provider.microsoft({ tenat: 'x' } as never), 'tenat');
  });

  it('GitLab self-hosted, Okta, Auth0 and Keycloak issuers', () => {
    expect(OAuth2Provider.gitlab({ issuer: 'https://git.example.com' }).issuer).toBe(
      'https://git.example.com',
    );
    configError(() => OAuth2Provider.gitlab({ issuer: 'http://git.example.com' }), 'issuer');
    expect(OAuth2Provider.okta({ domain: 'dev-1.okta.com' }).issuer).toBe('https://dev-1.okta.com');
    expect(
      OAuth2Provider.okta({ domain: 'dev-1.okta.com', authorizationServer: 'default' }).issuer,
    ).toBe('https://dev-1.okta.com/oauth2/default');
    for (const domain of ['https://dev-1.okta.com', 'dev-1.okta.com/x', 'a b', '']) {
      configError(() => OAuth2Provider.okta({ domain }), 'domain');
    }
    configError(
      () => OAuth2Provider.okta({ domain: 'a.okta.com', authorizationServer: 'x/y' }),
      'authorizationServer',
    );
    expect(OAuth2Provider.auth0({ domain: 'tenant.eu.auth0.com' })).toMatchObject({
      name: 'auth0',
      oidc: true,
      issuer: 'https://tenant.eu.auth0.com/',
      clientAuthentication: 'client_secret_post',
    });
    expect(OAuth2Provider.keycloak({ issuer: 'https://sso.example.com/realms/staff' }).issuer).toBe(
      'https://sso.example.com/realms/staff',
    );
    expect(
      OAuth2Provider.keycloak({ baseUrl: 'https://sso.example.com/', realm: 'my realm' }).issuer,
    ).toBe('https://sso.example.com/realms/my%20realm');
    configError(
      () => OAuth2Provider.keycloak({ issuer: 'https://a.example', realm: 'x' }),
      'issuer',
    );
  });

  it('a generic OIDC provider by issuer; http only on loopback', () => {
    expect(OAuth2Provider.oidc({ issuer: 'https://id.example.com' })).toMatchObject({
      name: 'oidc',
      oidc: true,
      scopes: OIDC_SCOPES,
      clientAuthentication: undefined,
    });
    expect(OAuth2Provider.oidc({ issuer: 'http://127.0.0.1:8080', name: 'dev' }).name).toBe('dev');
    expect(OAuth2Provider.oidc({ issuer: 'http://[::1]:8080' }).issuer).toBe('http://[::1]:8080');
    configError(() => OAuth2Provider.oidc({ issuer: 'http://id.example.com' }), 'issuer');
    configError(
      () => OAuth2Provider.oidc({ issuer: 'https://id.example.com/?tenant=1' }),
      'issuer',
    );
    configError(() => OAuth2Provider.oidc({ issuer: 'https://u:p@id.example.com' }), 'issuer');
    configError(() => OAuth2Provider.oidc({ issuer: 'id.example.com' }), 'issuer');
    configError(
      () => OAuth2Provider.oidc({ issuer: 'https://id.example.com', scopes: ['email'] }),
      'scopes',
    );
    configError(
      () => OAuth2Provider.oidc({ issuer: 'https://id.example.com', name: 'a/b' }),
      'name',
    );
    configError(
      () =>
        OAuth2Provider.oidc({
          issuer: 'https://id.example.com',
          clientAuthentication: 'none' as never,
        }),
      'clientAuthentication',
    );
    expect(() => OAuth2Provider.oidc({ isuer: 'https://x' } as never)).toThrow(
      /did you mean "issuer"/u,
    );
  });

  it('a generic OAuth2 provider by explicit endpoints', () => {
    const provider = OAuth2Provider.oauth2({
      name: 'acme',
      authorizationEndpoint: 'https://id.acme.example/authorize',
      tokenEndpoint: new URL('https://id.acme.example/token'),
      userInfoEndpoint: 'https://api.acme.example/me',
    });
    expect(provider).toMatchObject({
      name: 'acme',
      oidc: false,
      issuer: 'https://id.acme.example',
      scopes: [],
      clientAuthentication: 'client_secret_basic',
    });
    const base = {
      name: 'acme',
      authorizationEndpoint: 'https://id.acme.example/authorize',
      tokenEndpoint: 'https://id.acme.example/token',
      userInfoEndpoint: 'https://api.acme.example/me',
    };
    configError(
      () => OAuth2Provider.oauth2({ ...base, tokenEndpoint: 'http://id.acme.example/token' }),
      'tokenEndpoint',
    );
    configError(
      () => OAuth2Provider.oauth2({ ...base, authorizationEndpoint: '/authorize' }),
      'authorizationEndpoint',
    );
    configError(
      () => OAuth2Provider.oauth2({ ...base, userInfoEndpoint: undefined as never }),
      'userInfoEndpoint',
    );
    configError(() => OAuth2Provider.oauth2({ ...base, scopes: ['a b'] }), 'scopes');
    configError(() => OAuth2Provider.oauth2({ ...base, profile: 'sub' as never }), 'profile');
  });

  it('presets are immutable', () => {
    const google = OAuth2Provider.Google;
    expect(Object.isFrozen(google)).toBe(true);
    expect(Object.isFrozen(google.scopes)).toBe(true);
    expect(Object.isFrozen(OAuth2Provider.GitHub.endpoints)).toBe(true);
    expect(() => {
      (google.scopes as string[]).push('x');
    }).toThrow(TypeError);
  });
});

describe('appleClientSecret', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const options = { teamId: 'TEAM123456', keyId: 'KEY1234567', clientId: 'com.example.web' };

  it('signs an ES256 JWT for Apple and renews it when three quarters of its life are gone', async () => {
    let now = Date.UTC(2030, 0, 1);
    const secret = appleClientSecret({
      ...options,
      privateKey: pem,
      expiresInSeconds: 3600,
      clock: () => now,
    });
    const first = await secret();
    expect(decodeProtectedHeader(first)).toEqual({ alg: 'ES256', kid: 'KEY1234567' });
    const { payload } = await jwtVerify(first, publicKey, {
      algorithms: ['ES256'],
      issuer: 'TEAM123456',
      subject: 'com.example.web',
      audience: 'https://appleid.apple.com',
      currentDate: new Date(now),
    });
    expect(payload.exp! - payload.iat!).toBe(3600);
    now += 2000_000;
    expect(await secret()).toBe(first);
    now += 800_000;
    const renewed = await secret();
    expect(renewed).not.toBe(first);
  });

  it('refuses keys that are not P-256 private keys', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    configError(() => appleClientSecret({ ...options, privateKey: rsa }), 'privateKey');
    configError(() => appleClientSecret({ ...options, privateKey: publicKey }), 'privateKey');
    configError(() => appleClientSecret({ ...options, privateKey: 'not a pem' }), 'privateKey');
    configError(
      () => appleClientSecret({ ...options, privateKey: pem, expiresInSeconds: 1e9 }),
      'expiresInSeconds',
    );
    configError(() => appleClientSecret({ ...options, teamId: '', privateKey: pem }), 'teamId');
  });
});
