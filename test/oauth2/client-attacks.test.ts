import { inspect } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { OAuth2Client, type OAuth2ClientOptions } from '../../src/oauth2/index.js';
import {
  useProviderHarness,
  TEST_CLIENT_ID,
  TEST_CLIENT_SECRET,
  type ProviderHarness,
  type SignOptions,
} from './provider-harness.js';
import { harnessClientConfig, oauth2Failure } from './client-support.js';

let op: ProviderHarness;
let client: OAuth2Client;

useProviderHarness(undefined, (harness) => (op = harness));
beforeAll(async () => {
  client = await create();
});

function create(options: OAuth2ClientOptions = {}, issuer = op.issuer) {
  return OAuth2Client.create(harnessClientConfig(issuer), options);
}

/** An authorization request and the provider's redirect back, not yet handled. */
async function authorize(target = client) {
  const [url, state, pkceVerifier, nonce] = await target.authorizationUrl();
  const callback = await op.login(url);
  return { callback, expected: { state, pkceVerifier, nonce: nonce! } };
}

/** Replaces the ID token of the next token response. */
function forgeIdToken(claims: Record<string, unknown>, options?: SignOptions) {
  op.tamper.tokenResponse = async (body) => ({
    ...body,
    id_token: await op.signIdToken(op.idTokenClaims(claims), options),
  });
}

describe('discovery', () => {
  it('a discovery document that is not there (404) is an error, never plain OAuth2', async () => {
    await oauth2Failure(create({}, `${op.issuer}/nowhere`), 'ERR_OAUTH2_DISCOVERY');
  });

  it('a discovery document naming another issuer is refused', async () => {
    op.tamper.discovery = (body) => ({ ...body, issuer: 'http://127.0.0.1:1' });
    await oauth2Failure(create(), 'ERR_OAUTH2_DISCOVERY');
  });

  it('an unreachable provider fails discovery', async () => {
    await oauth2Failure(create({}, 'http://127.0.0.1:9'), 'ERR_OAUTH2_DISCOVERY');
  });

  it('metadata pointing the token endpoint at plain http off loopback is refused', async () => {
    op.tamper.discovery = (body) => ({ ...body, token_endpoint: 'http://op.example.com/token' });
    await oauth2Failure(create(), 'ERR_OAUTH2_DISCOVERY');
  });

  it('metadata without the keys (jwks_uri) is refused', async () => {
    op.tamper.discovery = (body) => ({ ...body, jwks_uri: undefined });
    await oauth2Failure(create(), 'ERR_OAUTH2_DISCOVERY');
  });
});

describe('the authorization response', () => {
  it('a wrong or missing state is refused before the code is exchanged', async () => {
    const { callback, expected } = await authorize();
    op.reset();
    await oauth2Failure(
      client.handleCallback(callback, { ...expected, state: 'other' }),
      'ERR_OAUTH2_STATE',
    );
    const missing = new URL(callback);
    missing.searchParams.delete('state');
    await oauth2Failure(client.handleCallback(missing, expected), 'ERR_OAUTH2_STATE');
    expect(op.requests).not.toContain('POST /token');
  });

  it('the state of another login (a swapped transaction) is refused', async () => {
    const first = await authorize();
    const second = await authorize();
    await oauth2Failure(client.handleCallback(first.callback, second.expected), 'ERR_OAUTH2_STATE');
  });

  it('a wrong iss (RFC 9207 mix-up) is refused, and a missing one too', async () => {
    const { callback, expected } = await authorize();
    const wrong = new URL(callback);
    wrong.searchParams.set('iss', 'https://evil.example');
    await oauth2Failure(client.handleCallback(wrong, expected), 'ERR_OAUTH2_ISSUER');
    const missing = new URL(callback);
    missing.searchParams.delete('iss');
    await oauth2Failure(client.handleCallback(missing, expected), 'ERR_OAUTH2_ISSUER');
  });

  it('duplicated parameters are refused', async () => {
    const { callback, expected } = await authorize();
    for (const name of ['state', 'iss', 'code']) {
      const twice = new URL(callback);
      twice.searchParams.append(name, twice.searchParams.get(name)!);
      await oauth2Failure(client.handleCallback(twice, expected), 'ERR_OAUTH2_INVALID_RESPONSE');
    }
  });

  it('a missing code is a malformed response', async () => {
    const { callback, expected } = await authorize();
    const url = new URL(callback);
    url.searchParams.delete('code');
    await oauth2Failure(client.handleCallback(url, expected), 'ERR_OAUTH2_INVALID_RESPONSE');
  });

  it('an error response gives the error code only, never the description', async () => {
    const [url, state, pkceVerifier, nonce] = await client.authorizationUrl();
    const callback = await op.login(url, { decision: 'deny' });
    expect(callback.searchParams.get('error_description')).toContain('refused');
    const error = await oauth2Failure(
      client.handleCallback(callback, { state, pkceVerifier, nonce }),
      'ERR_OAUTH2_PROVIDER_ERROR',
    );
    expect(error.providerError).toBe('access_denied');
    expect(inspect(error, { depth: 10 })).not.toMatch(/refused|<b>|everything/u);
  });

  it('an error response with a wrong state is a state error', async () => {
    const [url, , pkceVerifier, nonce] = await client.authorizationUrl();
    const callback = await op.login(url, { decision: 'deny' });
    await oauth2Failure(
      client.handleCallback(callback, { state: 'forged', pkceVerifier, nonce }),
      'ERR_OAUTH2_STATE',
    );
  });

  it('an incomplete transaction is refused', async () => {
    const { callback, expected } = await authorize();
    await oauth2Failure(
      client.handleCallback(callback, { ...expected, nonce: undefined }),
      'ERR_OAUTH2_TRANSACTION',
    );
    await oauth2Failure(
      client.handleCallback(callback, { ...expected, pkceVerifier: '' }),
      'ERR_OAUTH2_TRANSACTION',
    );
  });
});

describe('the code exchange', () => {
  it('a PKCE verifier that does not match the challenge is refused by the provider', async () => {
    const { callback, expected } = await authorize();
    const other = (await client.authorizationUrl())[2];
    const error = await oauth2Failure(
      client.handleCallback(callback, { ...expected, pkceVerifier: other }),
      'ERR_OAUTH2_TOKEN_EXCHANGE',
    );
    expect(error.providerError).toBe('invalid_grant');
  });

  it('a code is exchanged once: a replayed callback is refused', async () => {
    const { callback, expected } = await authorize();
    await client.handleCallback(callback, expected);
    const error = await oauth2Failure(
      client.handleCallback(callback, expected),
      'ERR_OAUTH2_TOKEN_EXCHANGE',
    );
    expect(error.providerError).toBe('invalid_grant');
  });

  it('no code, token or secret appears in an error or its cause', async () => {
    const tampers = [
      // oauth4webapi's own errors carry the whole token response (both tokens) here:
      () => {
        op.tamper.tokenResponse = ({ id_token: _, ...body }) => body;
      },
      (nonce: string) => {
        forgeIdToken({ nonce }, { signer: 'foreign' });
      },
      (nonce: string) => {
        forgeIdToken({ nonce: `${nonce}-other` });
      },
    ];
    for (const tamper of tampers) {
      const { callback, expected } = await authorize();
      tamper(expected.nonce);
      const rewrite = op.tamper.tokenResponse!;
      const secrets: string[] = [callback.searchParams.get('code')!, expected.nonce];
      op.tamper.tokenResponse = async (body) => {
        const sent = await rewrite(body);
        secrets.push(String(sent.access_token), String(sent.refresh_token));
        return sent;
      };
      const error = await oauth2Failure(
        client.handleCallback(callback, expected),
        'ERR_OAUTH2_ID_TOKEN',
      );
      const text = inspect(error, { depth: 10 });
      expect(secrets).toHaveLength(4);
      for (const secret of [...secrets, TEST_CLIENT_SECRET]) expect(text).not.toContain(secret);
      expect(text).not.toContain('eyJ'); // no JWT
    }
  });
});

describe('the ID token', () => {
  it('control: a token with valid claims signed with the provider key is accepted', async () => {
    const { callback, expected } = await authorize();
    forgeIdToken({ nonce: expected.nonce, email: 'alice@example.com' });
    const { user } = await client.handleCallback(callback, expected);
    expect(user.subject).toBe('alice');
  });

  it('a token signed by a key the provider never published is refused (same kid)', async () => {
    const { callback, expected } = await authorize();
    forgeIdToken({ nonce: expected.nonce }, { signer: 'foreign' });
    await oauth2Failure(client.handleCallback(callback, expected), 'ERR_OAUTH2_ID_TOKEN');
  });

  it('a token signed by an unknown key (unknown kid) is refused', async () => {
    const { callback, expected } = await authorize();
    forgeIdToken({ nonce: expected.nonce }, { signer: 'foreign', kid: 'attacker-key' });
    await oauth2Failure(client.handleCallback(callback, expected), 'ERR_OAUTH2_ID_TOKEN');
  });

  it('an unsigned token (alg: none) is refused', async () => {
    const { callback, expected } = await authorize();
    forgeIdToken({ nonce: expected.nonce }, { signer: 'none' });
    await oauth2Failure(client.handleCallback(callback, expected), 'ERR_OAUTH2_ID_TOKEN');
  });

  it('none and HMAC tokens are refused even when the metadata advertises those algorithms', async () => {
    op.tamper.discovery = (body) => ({
      ...body,
      id_token_signing_alg_values_supported: ['none', 'HS256', 'RS256'],
    });
    const lenient = await create();
    op.reset();
    for (const signer of ['none', 'client-secret'] as const) {
      const { callback, expected } = await authorize(lenient);
      forgeIdToken({ nonce: expected.nonce }, { signer });
      await oauth2Failure(lenient.handleCallback(callback, expected), 'ERR_OAUTH2_ID_TOKEN');
    }
  });

  it.each([
    ['a nonce of another login', { nonce: 'another-login-nonce' }],
    ['no nonce', { nonce: undefined }],
    ['another audience', { aud: 'another-client' }],
    ['another issuer', { iss: 'http://127.0.0.1:1' }],
    ['an expired token', { exp: Math.floor(Date.now() / 1000) - 3600 }],
    ['extra audiences without azp', { aud: [TEST_CLIENT_ID, 'another-client'] }],
    ['an azp of another client', { aud: [TEST_CLIENT_ID, 'x'], azp: 'x' }],
    ['no subject', { sub: undefined }],
  ])('%s is refused', async (_name, claims: Record<string, unknown>) => {
    const { callback, expected } = await authorize();
    forgeIdToken({ nonce: expected.nonce, ...claims });
    await oauth2Failure(client.handleCallback(callback, expected), 'ERR_OAUTH2_ID_TOKEN');
  });

  it('a token response without an ID token is refused', async () => {
    const { callback, expected } = await authorize();
    op.tamper.tokenResponse = ({ id_token: _, ...body }) => body;
    await oauth2Failure(client.handleCallback(callback, expected), 'ERR_OAUTH2_ID_TOKEN');
  });

  it("the client's clock decides expiry (a clock two hours ahead finds the token expired)", async () => {
    const ahead = await create({ clock: () => Date.now() + 2 * 3600_000 });
    const { callback, expected } = await authorize(ahead);
    await oauth2Failure(ahead.handleCallback(callback, expected), 'ERR_OAUTH2_ID_TOKEN');
  });

  it('a nonce replayed from an earlier login is refused', async () => {
    const first = await authorize();
    await client.handleCallback(first.callback, first.expected);
    const second = await authorize();
    forgeIdToken({ nonce: first.expected.nonce });
    await oauth2Failure(
      client.handleCallback(second.callback, second.expected),
      'ERR_OAUTH2_ID_TOKEN',
    );
  });
});

describe('userinfo', () => {
  it('a userinfo sub that differs from the ID token is refused', async () => {
    const { callback, expected } = await authorize();
    op.tamper.userinfo = (body) => ({ ...body, sub: 'mallory' });
    await oauth2Failure(client.handleCallback(callback, expected), 'ERR_OAUTH2_USERINFO');
  });

  it('an email verified only by a tampered userinfo never pairs with the ID token email', async () => {
    const { callback, expected } = await authorize();
    forgeIdToken({ nonce: expected.nonce, email: 'mallory@example.com' });
    op.tamper.userinfo = (body) => ({ ...body, email_verified: true });
    const { user } = await client.handleCallback(callback, expected);
    expect(user.email).toBe('mallory@example.com');
    expect(user.emailVerified).toBe(false);
  });
});
