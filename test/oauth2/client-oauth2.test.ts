import { describe, expect, it } from 'vitest';
import {
  OAuth2Client,
  OAuth2Config,
  OAuth2Provider,
  type OAuth2Fetch,
} from '../../src/oauth2/index.js';
import { oauth2Failure } from './client-support.js';

/**
 * Plain OAuth2 providers (GitHub, Discord, Facebook, multi-tenant Microsoft, a generic
 * one) with their HTTP APIs answered by a fake `fetch`: the presets' real endpoints are
 * checked, nothing leaves the process.
 */

const REDIRECT = 'https://app.example.com/login/oauth2/code/x';
const SECRET = 'oauth2-test-client-secret';
const ACCESS_TOKEN = 'at-0123456789';

type Handler = (request: Request) => Response | Promise<Response>;

function json(body: unknown, init: ResponseInit = {}): Response {
  return Response.json(body, init);
}

/** A fetch answering `METHOD https://host/path` routes, recording each request. */
function fakeFetch(routes: Record<string, Handler>) {
  const seen: Request[] = [];
  const fetch: OAuth2Fetch = async (url, init) => {
    const request = new Request(url, init);
    seen.push(request.clone());
    const target = new URL(url);
    const handler = routes[`${request.method} ${target.origin}${target.pathname}`];
    if (handler === undefined) throw new TypeError('fetch failed');
    return handler(request);
  };
  return { fetch, seen };
}

function tokenRoute(check: (request: Request, form: URLSearchParams) => void = () => undefined) {
  return async (request: Request) => {
    const form = new URLSearchParams(await request.text());
    check(request, form);
    return json({ access_token: ACCESS_TOKEN, token_type: 'bearer', scope: 'a b' });
  };
}

function bearer(body: unknown): Handler {
  return (request) =>
    request.headers.get('authorization') === `Bearer ${ACCESS_TOKEN}`
      ? json(body)
      : new Response(null, {
          status: 401,
          headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
        });
}

async function run(provider: OAuth2Provider, routes: Record<string, Handler>, iss?: string) {
  const { fetch, seen } = fakeFetch(routes);
  const client = await OAuth2Client.create(
    new OAuth2Config('client-1', SECRET, REDIRECT).provider(provider),
    { fetch },
  );
  const [url, state, pkceVerifier, nonce] = await client.authorizationUrl();
  const callback = new URL(REDIRECT);
  callback.searchParams.set('code', 'the-code');
  callback.searchParams.set('state', state);
  if (iss !== undefined) callback.searchParams.set('iss', iss);
  const result = client.handleCallback(callback, { state, pkceVerifier, nonce });
  return { client, url, nonce, result, seen };
}

const GITHUB_TOKEN = 'POST https://github.com/login/oauth/access_token';
const GITHUB_USER = 'GET https://api.github.com/user';
const GITHUB_EMAILS = 'GET https://api.github.com/user/emails';
const OCTOCAT = {
  id: 583231,
  login: 'octocat',
  name: null,
  avatar_url: 'https://a.example/o.png',
  email: 'public@example.com',
};

describe('GitHub', () => {
  it('exchanges the code with client_secret_post and PKCE, and reads /user and the primary verified email', async () => {
    const { url, nonce, result, seen } = await run(
      OAuth2Provider.GitHub,
      {
        [GITHUB_TOKEN]: tokenRoute((request, form) => {
          expect(request.headers.get('authorization')).toBeNull();
          expect(form.get('client_id')).toBe('client-1');
          expect(form.get('client_secret')).toBe(SECRET);
          expect(form.get('code')).toBe('the-code');
          expect(form.get('code_verifier')).toMatch(/^[\w~.-]{43,128}$/u);
          expect(form.get('redirect_uri')).toBe(REDIRECT);
        }),
        [GITHUB_USER]: bearer(OCTOCAT),
        [GITHUB_EMAILS]: bearer([
          { email: 'other@example.com', primary: false, verified: true },
          { email: 'octocat@example.com', primary: true, verified: true },
        ]),
      },
      'https://github.com/login/oauth',
    );
    expect(nonce).toBeUndefined();
    expect(url.searchParams.get('nonce')).toBeNull();
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('scope')).toBe('read:user user:email');
    const { user, tokens } = await result;
    expect(user).toMatchObject({
      provider: 'github',
      subject: '583231',
      email: 'octocat@example.com',
      emailVerified: true,
      name: 'octocat',
      picture: 'https://a.example/o.png',
    });
    expect(user.claims.login).toBe('octocat');
    expect(tokens).toMatchObject({
      accessToken: ACCESS_TOKEN,
      idToken: undefined,
      refreshToken: undefined,
    });
    expect(seen.map((r) => r.headers.get('accept'))).toContain('application/vnd.github+json');
  });

  it('an unverified primary email is not reported (and the public profile email is not trusted)', async () => {
    const { result } = await run(OAuth2Provider.GitHub, {
      [GITHUB_TOKEN]: tokenRoute(),
      [GITHUB_USER]: bearer(OCTOCAT),
      [GITHUB_EMAILS]: bearer([{ email: 'octocat@example.com', primary: true, verified: false }]),
    });
    const { user } = await result;
    expect(user.email).toBeUndefined();
    expect(user.emailVerified).toBe(false);
  });

  it('an iss other than GitHub’s is refused', async () => {
    const { result } = await run(OAuth2Provider.GitHub, {}, 'https://evil.example');
    await oauth2Failure(result, 'ERR_OAUTH2_ISSUER');
  });

  it('an error answered with status 200 fails the exchange with its error code', async () => {
    const { result } = await run(OAuth2Provider.GitHub, {
      [GITHUB_TOKEN]: () =>
        json({
          error: 'bad_verification_code',
          error_description: 'The code passed is incorrect or expired.',
        }),
    });
    const error = await oauth2Failure(result, 'ERR_OAUTH2_TOKEN_EXCHANGE');
    expect(error.providerError).toBe('bad_verification_code');
    expect(error.message).not.toContain('incorrect');
  });

  it('a refused profile request is a userinfo error', async () => {
    const { result } = await run(OAuth2Provider.GitHub, {
      [GITHUB_TOKEN]: tokenRoute(),
      [GITHUB_USER]: () =>
        new Response(null, {
          status: 401,
          headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
        }),
    });
    await oauth2Failure(result, 'ERR_OAUTH2_USERINFO');
  });

  it('a profile without an id is refused', async () => {
    const { result } = await run(OAuth2Provider.GitHub, {
      [GITHUB_TOKEN]: tokenRoute(),
      [GITHUB_USER]: bearer({ login: 'octocat' }),
      [GITHUB_EMAILS]: bearer([]),
    });
    await oauth2Failure(result, 'ERR_OAUTH2_USERINFO');
  });

  it('a provider that cannot be reached is a network error', async () => {
    const { result } = await run(OAuth2Provider.GitHub, {});
    await oauth2Failure(result, 'ERR_OAUTH2_NETWORK');
  });

  it('a nonce in the transaction of a plain OAuth2 client is refused', async () => {
    const { client, result } = await run(OAuth2Provider.GitHub, {});
    await oauth2Failure(result, 'ERR_OAUTH2_NETWORK');
    await oauth2Failure(
      client.handleCallback(`${REDIRECT}?code=c&state=s`, {
        state: 's',
        pkceVerifier: 'v',
        nonce: 'n',
      }),
      'ERR_OAUTH2_TRANSACTION',
    );
  });
});

describe('Discord', () => {
  it('authenticates with client_secret_post and reads /users/@me', async () => {
    const { result } = await run(OAuth2Provider.Discord, {
      'POST https://discord.com/api/oauth2/token': tokenRoute((request, form) => {
        expect(request.headers.get('authorization')).toBeNull();
        expect(form.get('client_secret')).toBe(SECRET);
      }),
      'GET https://discord.com/api/users/@me': bearer({
        id: '80351110224678912',
        username: 'nelly',
        global_name: 'Nelly',
        avatar: '8342729096ea3675442027381ff50dfe',
        email: 'nelly@example.com',
        verified: true,
      }),
    });
    const { user } = await result;
    expect(user).toMatchObject({
      provider: 'discord',
      subject: '80351110224678912',
      name: 'Nelly',
      email: 'nelly@example.com',
      emailVerified: true,
      picture:
        'https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png',
    });
  });
});

describe('Facebook', () => {
  it('reads the Graph /me fields; the email is never reported verified', async () => {
    const { result, seen } = await run(OAuth2Provider.Facebook, {
      'POST https://graph.facebook.com/v23.0/oauth/access_token': tokenRoute(),
      'GET https://graph.facebook.com/v23.0/me': bearer({
        id: '10',
        name: 'Mark',
        email: 'mark@example.com',
        picture: { data: { url: 'https://p.example/m.jpg' } },
      }),
    });
    const { user } = await result;
    expect(user).toMatchObject({
      subject: '10',
      name: 'Mark',
      email: 'mark@example.com',
      emailVerified: false,
      picture: 'https://p.example/m.jpg',
    });
    expect(new URL(seen[1]!.url).searchParams.get('fields')).toBe('id,name,email,picture');
  });
});

describe('Microsoft, multi-tenant', () => {
  it('uses the common endpoints and Graph /me', async () => {
    const { result, url } = await run(OAuth2Provider.Microsoft, {
      'POST https://login.microsoftonline.com/common/oauth2/v2.0/token': tokenRoute((_r, form) => {
        expect(form.get('client_secret')).toBe(SECRET);
      }),
      'GET https://graph.microsoft.com/v1.0/me': bearer({
        id: '9f1c-guid',
        displayName: 'Ada',
        mail: 'ada@example.com',
      }),
    });
    expect(url.origin + url.pathname).toBe(
      'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    );
    expect(url.searchParams.get('scope')).toBe('User.Read');
    const { user } = await result;
    expect(user).toMatchObject({
      provider: 'microsoft',
      subject: '9f1c-guid',
      name: 'Ada',
      email: 'ada@example.com',
      emailVerified: false,
    });
  });
});

describe('a generic OAuth2 provider', () => {
  const provider = OAuth2Provider.oauth2({
    name: 'acme',
    authorizationEndpoint: 'https://id.acme.example/authorize',
    tokenEndpoint: 'https://id.acme.example/token',
    userInfoEndpoint: 'https://api.acme.example/me',
    scopes: ['profile'],
    profile: (data) => ({
      subject: String(data.uid),
      email: data.mail as string,
      emailVerified: data.mail_confirmed === true,
    }),
  });

  it('maps the profile with the application’s function; client_secret_basic by default (RFC 6749 §2.3.1 encoding)', async () => {
    const { result, url } = await run(provider, {
      'POST https://id.acme.example/token': tokenRoute((request, form) => {
        const encode = (value: string) => encodeURIComponent(value).replaceAll('-', '%2D');
        expect(request.headers.get('authorization')).toBe(
          `Basic ${Buffer.from(`${encode('client-1')}:${encode(SECRET)}`).toString('base64')}`,
        );
        expect(form.get('client_secret')).toBeNull();
      }),
      'GET https://api.acme.example/me': bearer({
        uid: 7,
        mail: 'u@acme.example',
        mail_confirmed: true,
      }),
    });
    expect(url.origin).toBe('https://id.acme.example');
    const { user } = await result;
    expect(user).toMatchObject({
      provider: 'acme',
      subject: '7',
      email: 'u@acme.example',
      emailVerified: true,
    });
    expect(user.claims).toEqual({ uid: 7, mail: 'u@acme.example', mail_confirmed: true });
  });

  it('a profile answered as HTML is refused', async () => {
    const { result } = await run(provider, {
      'POST https://id.acme.example/token': tokenRoute(),
      'GET https://api.acme.example/me': () =>
        new Response('<html>', { headers: { 'content-type': 'text/html' } }),
    });
    await oauth2Failure(result, 'ERR_OAUTH2_USERINFO');
  });

  it('an iss equal to its issuer (the authorization endpoint origin) is accepted', async () => {
    const { result } = await run(
      provider,
      {
        'POST https://id.acme.example/token': tokenRoute(),
        'GET https://api.acme.example/me': bearer({ uid: 7 }),
      },
      'https://id.acme.example',
    );
    expect((await result).user.subject).toBe('7');
  });
});
