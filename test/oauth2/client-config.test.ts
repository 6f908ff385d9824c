import { describe, expect, it } from 'vitest';
import {
  OAuth2Client,
  OAuth2Config,
  OAuth2Provider,
  type OAuth2ConfigOptions,
  type OAuth2Fetch,
} from '../../src/oauth2/index.js';

const REDIRECT = 'https://app.example.com/login/oauth2/code/google';

function configError(run: () => unknown, option: string) {
  expect(run).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTION', option }) as Error);
}

function google() {
  return new OAuth2Config('client-1', 'secret-1', REDIRECT).provider(OAuth2Provider.Google);
}

/** Serves a discovery document for `issuer` (no network). */
function discoveryFetch(issuer: string, extra: Record<string, unknown> = {}): OAuth2Fetch {
  return (url) => {
    if (url !== `${issuer}/.well-known/openid-configuration`) {
      return Promise.reject(new TypeError('fetch failed'));
    }
    return Promise.resolve(
      Response.json({
        issuer,
        authorization_endpoint: `${issuer}/auth/authorize`,
        token_endpoint: `${issuer}/auth/token`,
        jwks_uri: `${issuer}/auth/keys`,
        response_types_supported: ['code'],
        ...extra,
      }),
    );
  };
}

describe('OAuth2Config', () => {
  it('validates the client id, the secret and the redirect URI at construction', () => {
    configError(() => new OAuth2Config('', 's', REDIRECT), 'clientId');
    configError(() => new OAuth2Config('a\nb', 's', REDIRECT), 'clientId');
    configError(() => new OAuth2Config('id', '', REDIRECT), 'clientSecret');
    configError(() => new OAuth2Config('id', 42 as never, REDIRECT), 'clientSecret');
    configError(() => new OAuth2Config('id', 'bad\u0000secret', REDIRECT), 'clientSecret');
    for (const uri of [
      '/callback',
      'http://app.example.com/cb',
      'https://app.example.com/cb#frag',
      'https://u:p@app.example.com/cb',
      'javascript:alert(1)',
    ]) {
      configError(() => new OAuth2Config('id', 's', uri), 'redirectUri');
    }
    for (const uri of ['http://127.0.0.1:3000/cb', 'http://localhost/cb', 'http://[::1]/cb']) {
      expect(() => new OAuth2Config('id', 's', uri)).not.toThrow();
    }
  });

  it('never puts the secret in a configuration error', () => {
    expect(() => new OAuth2Config('id', 'top-secret\u0001', REDIRECT)).toThrow(
      expect.not.objectContaining({
        message: expect.stringContaining('top-secret') as string,
      }) as Error,
    );
  });

  it('refuses authorization parameters the flow relies on', () => {
    for (const name of [
      'state',
      'nonce',
      'code_challenge',
      'code_challenge_method',
      'redirect_uri',
      'response_type',
      'response_mode',
      'client_id',
      'scope',
      'request_uri',
    ]) {
      configError(
        () => google().authorizationParams({ [name]: 'x' }),
        `authorizationParams.${name}`,
      );
    }
    configError(
      () => google().authorizationParams({ prompt: 1 as never }),
      'authorizationParams.prompt',
    );
    configError(
      () => google().authorizationParams({ prompt: 'a\r\nb' }),
      'authorizationParams.prompt',
    );
    configError(() => google().authorizationParams({ 'bad name': 'x' }), 'authorizationParams');
    configError(
      () => google().authorizationParams({ max_age: 'soon' }),
      'authorizationParams.max_age',
    );
    configError(() => google().authorizationParams(null as never), 'authorizationParams');
    expect(() =>
      google().authorizationParams({ prompt: 'consent', hd: 'example.com', max_age: '300' }),
    ).not.toThrow();
  });

  it('validates scopes, and OIDC providers need openid in any order of the setters', () => {
    configError(() => google().scopes([]), 'scopes');
    configError(() => google().scopes(['a b']), 'scopes');
    configError(() => google().scopes(['a"b']), 'scopes');
    configError(() => google().scopes(['email']), 'scopes');
    const config = new OAuth2Config('id', 's', REDIRECT).scopes(['email']);
    configError(() => config.provider(OAuth2Provider.Google), 'scopes');
    expect(() =>
      new OAuth2Config('id', 's', REDIRECT).scopes(['repo']).provider(OAuth2Provider.GitHub),
    ).not.toThrow();
  });

  it('validates the registration id and the client authentication', () => {
    configError(() => google().registrationId('a/b'), 'registrationId');
    configError(() => google().registrationId(''), 'registrationId');
    configError(
      () => google().clientAuthentication('private_key_jwt' as never),
      'clientAuthentication',
    );
    configError(
      () => new OAuth2Config('id', 's', REDIRECT).provider('google' as never),
      'provider',
    );
  });

  it('the plain options form: unknown keys with a hint, a required provider, no mutation', async () => {
    const options: OAuth2ConfigOptions = Object.freeze({
      clientId: 'id',
      clientSecret: 's',
      redirectUri: REDIRECT,
      provider: OAuth2Provider.GitHub,
      scopes: Object.freeze(['read:user']),
      authorizationParams: Object.freeze({ allow_signup: 'false' }),
      registrationId: 'gh',
    });
    const client = await OAuth2Client.create(options);
    expect(client).toMatchObject({
      registrationId: 'gh',
      scopes: ['read:user'],
      issuer: 'https://github.com/login/oauth',
    });
    expect((await client.authorizationUrl())[0].searchParams.get('allow_signup')).toBe('false');
    expect(() => new OAuth2Config({ ...options, redirectUrl: REDIRECT } as never)).toThrow(
      /did you mean "redirectUri"/u,
    );
    configError(() => new OAuth2Config({ ...options, provider: undefined as never }), 'provider');
    configError(() => new OAuth2Config(undefined as never), 'OAuth2Config');
  });

  it('a later change to the caller’s objects does not reach the configuration', async () => {
    const params: Record<string, string> = { prompt: 'consent' };
    const scopes = ['read:user'];
    const config = new OAuth2Config('id', 's', REDIRECT)
      .provider(OAuth2Provider.GitHub)
      .scopes(scopes)
      .authorizationParams(params);
    params.prompt = 'none';
    scopes.push('repo');
    const [url] = await (await OAuth2Client.create(config)).authorizationUrl();
    expect(url.searchParams.get('prompt')).toBe('consent');
    expect(url.searchParams.get('scope')).toBe('read:user');
  });

  it('a configuration without a provider cannot make a client', async () => {
    await expect(OAuth2Client.create(new OAuth2Config('id', 's', REDIRECT))).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option: 'provider',
    });
  });
});

describe('OAuth2Client.create options', () => {
  it('validates fetch, clock and timeoutMs', async () => {
    for (const [options, option] of [
      [{ fetch: 'x' }, 'fetch'],
      [{ clock: 1 }, 'clock'],
      [{ timeoutMs: 5 }, 'timeoutMs'],
      [{ timeout: 5 }, 'timeout'],
    ] as const) {
      await expect(OAuth2Client.create(google(), options as never)).rejects.toMatchObject({
        code: 'ERR_INVALID_OPTION',
        option,
      });
    }
  });

  it('a slow provider times out as a discovery failure', async () => {
    const stalled: OAuth2Fetch = (_url, init) =>
      new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => {
          reject(init.signal?.reason as Error);
        });
      });
    await expect(
      OAuth2Client.create(google(), { fetch: stalled, timeoutMs: 100 }),
    ).rejects.toMatchObject({
      code: 'ERR_OAUTH2_DISCOVERY',
    });
  });

  it('chooses client_secret_post from the metadata of a generic provider that lacks basic', async () => {
    const issuer = 'https://id.example.com';
    const config = new OAuth2Config('id', 's', REDIRECT).provider(OAuth2Provider.oidc({ issuer }));
    const post = await OAuth2Client.create(config, {
      fetch: discoveryFetch(issuer, {
        token_endpoint_auth_methods_supported: ['client_secret_post'],
      }),
    });
    expect(post.clientAuthentication).toBe('client_secret_post');
    await expect(
      OAuth2Client.create(config, {
        fetch: discoveryFetch(issuer, {
          token_endpoint_auth_methods_supported: ['private_key_jwt'],
        }),
      }),
    ).rejects.toMatchObject({ code: 'ERR_OAUTH2_DISCOVERY' });
    await expect(
      OAuth2Client.create(config, {
        fetch: discoveryFetch(issuer, { response_types_supported: ['id_token'] }),
      }),
    ).rejects.toMatchObject({ code: 'ERR_OAUTH2_DISCOVERY' });
  });
});

describe('Apple', () => {
  it('asks for response_mode=form_post when name or email is requested', async () => {
    const issuer = 'https://appleid.apple.com';
    const apple = (scopes?: string[]) => {
      const config = new OAuth2Config('com.example.web', () => 'jwt-secret', REDIRECT).provider(
        OAuth2Provider.Apple,
      );
      return OAuth2Client.create(scopes ? config.scopes(scopes) : config, {
        fetch: discoveryFetch(issuer),
      });
    };
    const plain = await apple();
    expect(plain.responseMode).toBe('query');
    expect((await plain.authorizationUrl())[0].searchParams.get('response_mode')).toBeNull();
    const withEmail = await apple(['openid', 'name', 'email']);
    expect(withEmail.responseMode).toBe('form_post');
    const [url, , , nonce] = await withEmail.authorizationUrl();
    expect(url.origin + url.pathname).toBe('https://appleid.apple.com/auth/authorize');
    expect(url.searchParams.get('response_mode')).toBe('form_post');
    expect(url.searchParams.get('scope')).toBe('openid name email');
    expect(nonce).toEqual(expect.any(String));
  });
});
