import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OAuth2Client, OAuth2Provider, type OAuth2ClientOptions } from '../../src/oauth2/index.js';
import {
  useProviderHarness,
  TEST_CLIENT_ID,
  TEST_CLIENT_SECRET,
  TEST_REDIRECT_URI,
  type ProviderHarness,
} from './provider-harness.js';
import { harnessClientConfig, oauth2Failure } from './client-support.js';

const POST_CLIENT = 'portcullis-post';
const POST_REDIRECT = 'http://127.0.0.1:9/login/oauth2/code/post';

let op: ProviderHarness;

useProviderHarness(
  {
    clients: [
      { redirectUris: [TEST_REDIRECT_URI] },
      {
        clientId: POST_CLIENT,
        redirectUris: [POST_REDIRECT],
        tokenEndpointAuthMethod: 'client_secret_post',
      },
    ],
  },
  (harness) => (op = harness),
);

function config(overrides: { secret?: string } = {}) {
  return harnessClientConfig(op.issuer, { ...overrides, name: 'local' });
}

async function login(client: OAuth2Client, subject = 'alice') {
  const [url, state, pkceVerifier, nonce] = await client.authorizationUrl();
  const callback = await op.login(url, { subject });
  return client.handleCallback(callback, { state, pkceVerifier, nonce });
}

describe('OAuth2Client against a real OpenID Provider (oidc-provider)', () => {
  it('discovers the provider and exposes the registration', async () => {
    const client = await OAuth2Client.create(config());
    expect(client.issuer).toBe(op.issuer);
    expect(client.registrationId).toBe('local');
    expect(client.provider.oidc).toBe(true);
    expect(client.clientAuthentication).toBe('client_secret_basic');
    expect(client.responseMode).toBe('query');
    expect(op.requests).toEqual(['GET /.well-known/openid-configuration']);
  });

  it('builds an authorization URL with S256 PKCE, state and nonce, fresh on every call', async () => {
    const client = await OAuth2Client.create(
      config().authorizationParams({ prompt: 'login', login_hint: 'alice' }),
    );
    const [url, state, verifier, nonce] = await client.authorizationUrl();
    expect(`${url.origin}${url.pathname}`).toBe(`${op.issuer}/auth`);
    const query = url.searchParams;
    expect(query.get('response_type')).toBe('code');
    expect(query.get('client_id')).toBe(TEST_CLIENT_ID);
    expect(query.get('redirect_uri')).toBe(TEST_REDIRECT_URI);
    expect(query.get('scope')).toBe('openid profile email');
    expect(query.get('state')).toBe(state);
    expect(query.get('nonce')).toBe(nonce);
    expect(query.get('code_challenge_method')).toBe('S256');
    expect(query.get('code_challenge')).toBe(
      createHash('sha256').update(verifier).digest('base64url'),
    );
    expect(query.get('prompt')).toBe('login');
    expect(query.get('login_hint')).toBe('alice');
    expect(verifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/u);
    expect(state.length).toBeGreaterThanOrEqual(32);
    expect(nonce?.length).toBeGreaterThanOrEqual(32);

    const [again, state2, verifier2, nonce2] = await client.authorizationUrl();
    expect(again.href).not.toBe(url.href);
    expect(new Set([state, state2]).size).toBe(2);
    expect(new Set([verifier, verifier2]).size).toBe(2);
    expect(new Set([nonce, nonce2]).size).toBe(2);
  });

  it('logs a user in through the full code flow and returns the claims and tokens', async () => {
    const client = await OAuth2Client.create(config());
    op.reset();
    const { user, tokens } = await login(client);
    expect(user).toMatchObject({
      provider: 'local',
      subject: 'alice',
      email: 'alice@example.com',
      emailVerified: true,
      name: 'Alice Liddell',
      picture: 'https://example.com/alice.png',
    });
    expect(user.claims).toMatchObject({ sub: 'alice', iss: op.issuer, aud: TEST_CLIENT_ID });
    expect(Object.isFrozen(user)).toBe(true);
    expect(Object.isFrozen(user.claims)).toBe(true);
    expect(Object.getPrototypeOf(user.claims)).toBe(Object.prototype);
    expect(tokens.tokenType).toBe('bearer');
    expect(tokens.accessToken).toEqual(expect.any(String));
    expect(tokens.refreshToken).toEqual(expect.any(String));
    expect(tokens.idToken?.split('.')).toHaveLength(3);
    expect(tokens.expiresIn).toBe(3600);
    expect(tokens.scope?.split(' ').sort()).toEqual(['email', 'openid', 'profile']);
    // The code exchange, the provider's keys (signature check) and userinfo were all used.
    expect(op.requests).toEqual(expect.arrayContaining(['POST /token', 'GET /jwks', 'GET /me']));
  });

  it('reports an unverified email as unverified, and no email as undefined', async () => {
    const client = await OAuth2Client.create(config());
    const bob = await login(client, 'bob');
    expect(bob.user).toMatchObject({
      subject: 'bob',
      email: 'bob@example.com',
      emailVerified: false,
    });
    const carol = await login(client, 'carol');
    expect(carol.user).toMatchObject({ subject: 'carol', email: undefined, emailVerified: false });
  });

  it('asks for no userinfo when only openid is requested', async () => {
    const client = await OAuth2Client.create(config().scopes(['openid']));
    op.reset();
    const { user } = await login(client);
    expect(user.subject).toBe('alice');
    expect(user.email).toBeUndefined();
    expect(op.requests).not.toContain('GET /me');
  });

  it('authenticates with client_secret_post when configured', async () => {
    const client = await OAuth2Client.create(
      harnessClientConfig(op.issuer, {
        clientId: POST_CLIENT,
        redirectUri: POST_REDIRECT,
      }).clientAuthentication('client_secret_post'),
    );
    expect(client.clientAuthentication).toBe('client_secret_post');
    expect(client.registrationId).toBe('oidc');
    const { user } = await login(client);
    expect(user.subject).toBe('alice');
  });

  it('accepts the plain options form and a relative callback URL', async () => {
    const client = await OAuth2Client.create({
      clientId: TEST_CLIENT_ID,
      clientSecret: () => Promise.resolve(TEST_CLIENT_SECRET),
      redirectUri: TEST_REDIRECT_URI,
      provider: OAuth2Provider.oidc({ issuer: op.issuer }),
      registrationId: 'dev',
    });
    const [url, state, pkceVerifier, nonce] = await client.authorizationUrl();
    const callback = await op.login(url);
    const result = await client.handleCallback(`${callback.pathname}${callback.search}`, {
      state,
      pkceVerifier,
      nonce,
    });
    expect(result.user).toMatchObject({ provider: 'dev', subject: 'alice' });
  });

  it('accepts the parameters of a form_post response (the POST body) as URLSearchParams', async () => {
    const client = await OAuth2Client.create(config());
    const [url, state, pkceVerifier, nonce] = await client.authorizationUrl();
    const callback = await op.login(url);
    const body = new URLSearchParams(callback.search);
    const { user } = await client.handleCallback(body, { state, pkceVerifier, nonce });
    expect(user.subject).toBe('alice');
  });

  it('refreshes the tokens with a stored refresh token', async () => {
    const client = await OAuth2Client.create(config());
    const { tokens } = await login(client);
    op.reset();
    const refreshed = await client.refresh(tokens.refreshToken!);
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(refreshed.tokenType).toBe('bearer');
    expect(refreshed.idToken?.split('.')).toHaveLength(3);
    expect(op.requests).toContain('POST /token');
  });

  it('a refreshed ID token must name the expected subject', async () => {
    const client = await OAuth2Client.create(config());
    const { user, tokens } = await login(client);
    const same = await client.refresh(tokens.refreshToken!, { expectedSubject: user.subject });
    op.tamper.tokenResponse = async (body) => ({
      ...body,
      id_token: await op.signIdToken(op.idTokenClaims({ sub: 'bob' })),
    });
    const error = await oauth2Failure(
      client.refresh(same.refreshToken ?? tokens.refreshToken!, { expectedSubject: 'alice' }),
    );
    expect(error.code).toBe('ERR_OAUTH2_REFRESH');
  });

  it('refuses a refresh with an unknown or empty refresh token', async () => {
    const client = await OAuth2Client.create(config());
    const error = await oauth2Failure(client.refresh('not-a-refresh-token'));
    expect(error.code).toBe('ERR_OAUTH2_REFRESH');
    expect(error.providerError).toBe('invalid_grant');
    expect(error.message).not.toContain('not-a-refresh-token');
    expect((await oauth2Failure(client.refresh(''))).code).toBe('ERR_OAUTH2_REFRESH');
  });

  it('a refreshed ID token signed by a foreign key is refused (control: the provider key passes)', async () => {
    const client = await OAuth2Client.create(config());
    let { tokens } = await login(client);
    op.tamper.tokenResponse = async (body) => ({
      ...body,
      id_token: await op.signIdToken(op.idTokenClaims()),
    });
    tokens = await client.refresh(tokens.refreshToken!);
    op.tamper.tokenResponse = async (body) => ({
      ...body,
      id_token: await op.signIdToken(op.idTokenClaims(), { signer: 'foreign' }),
    });
    const error = await oauth2Failure(client.refresh(tokens.refreshToken!));
    expect(error.code).toBe('ERR_OAUTH2_REFRESH');
  });

  it('a wrong client secret fails the exchange as invalid_client', async () => {
    const client = await OAuth2Client.create(
      config({ secret: 'not-the-secret-of-this-client-00' }),
    );
    const error = await oauth2Failure(login(client));
    expect(error.code).toBe('ERR_OAUTH2_TOKEN_EXCHANGE');
    expect(error.providerError).toBe('invalid_client');
    expect(error.message).not.toContain('not-the-secret');
  });

  it('uses the fetch option for every request to the provider', async () => {
    const seen: string[] = [];
    const options: OAuth2ClientOptions = {
      fetch: (url, init) => {
        seen.push(`${init.method ?? 'GET'} ${new URL(url).pathname}`);
        return fetch(url, init);
      },
    };
    const client = await OAuth2Client.create(config(), options);
    await login(client);
    expect(seen).toEqual([
      'GET /.well-known/openid-configuration',
      'POST /token',
      'GET /jwks',
      'GET /me',
    ]);
  });
});
