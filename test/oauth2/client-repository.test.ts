import { describe, expect, it } from 'vitest';
import {
  OAuth2ClientRepository,
  OAuth2Config,
  OAuth2Error,
  OAuth2Provider,
  type OAuth2ClientLike,
} from '../../src/oauth2/index.js';
import {
  useProviderHarness,
  TEST_CLIENT_ID,
  TEST_REDIRECT_URI,
  type ProviderHarness,
} from './provider-harness.js';
import { harnessClientConfig } from './client-support.js';

const OTHER_REDIRECT = 'http://127.0.0.1:9/login/oauth2/code/other';

let op: ProviderHarness;

useProviderHarness(
  {
    clients: [
      { redirectUris: [TEST_REDIRECT_URI] },
      { clientId: 'other', redirectUris: [OTHER_REDIRECT] },
    ],
  },
  (harness) => (op = harness),
);

function local(id: string, clientId = TEST_CLIENT_ID, redirect = TEST_REDIRECT_URI) {
  return harnessClientConfig(op.issuer, { clientId, redirectUri: redirect }).registrationId(id);
}

describe('OAuth2ClientRepository', () => {
  it('creates the clients and finds them by registration id', async () => {
    const repository = await OAuth2ClientRepository.create([
      local('local'),
      {
        clientId: 'id',
        clientSecret: 's',
        redirectUri: 'https://app.example.com/cb',
        provider: OAuth2Provider.GitHub,
      },
    ]);
    expect(repository.registrationIds).toEqual(['local', 'github']);
    expect(repository.get('local').issuer).toBe(op.issuer);
    expect(repository.get('github').provider).toBe(OAuth2Provider.GitHub);
    expect(repository.has('local')).toBe(true);
    expect(repository.find('nope')).toBeUndefined();
    expect([...repository].map((c) => c.registrationId)).toEqual(['local', 'github']);
  });

  it('an unknown registration id is ERR_OAUTH2_UNKNOWN_REGISTRATION, without echoing it', async () => {
    const repository = await OAuth2ClientRepository.create([local('local')]);
    const error = (() => {
      try {
        repository.get('<script>x</script>');
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(OAuth2Error);
    expect((error as OAuth2Error).code).toBe('ERR_OAUTH2_UNKNOWN_REGISTRATION');
    expect((error as OAuth2Error).message).not.toContain('script');
    expect(repository.has('__proto__')).toBe(false);
    expect(repository.find(undefined as never)).toBeUndefined();
  });

  it('refuses a registration id used twice, before any discovery request', async () => {
    op.reset();
    await expect(
      OAuth2ClientRepository.create([local('same'), local('same', 'other', OTHER_REDIRECT)]),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION', option: 'registrationId' });
    expect(op.requests).toEqual([]);
    await expect(OAuth2ClientRepository.create([])).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
    });
  });

  it('fails when one provider cannot be discovered', async () => {
    const broken = new OAuth2Config('id', 's', TEST_REDIRECT_URI).provider(
      OAuth2Provider.oidc({ issuer: `${op.issuer}/missing`, name: 'broken' }),
    );
    await expect(OAuth2ClientRepository.create([local('local'), broken])).rejects.toMatchObject({
      code: 'ERR_OAUTH2_DISCOVERY',
    });
  });

  it('from(): a repository of existing clients (for example test doubles)', () => {
    const fake = (registrationId: string) => ({ registrationId }) as OAuth2ClientLike;
    const repository = OAuth2ClientRepository.from([fake('a'), fake('b')]);
    expect(repository.get('b').registrationId).toBe('b');
    expect(() => OAuth2ClientRepository.from([fake('a'), fake('a')])).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION' }) as Error,
    );
  });

  it('a callback of one registration is refused by another (state and client are bound)', async () => {
    const repository = await OAuth2ClientRepository.create([
      local('local'),
      local('other', 'other', OTHER_REDIRECT),
    ]);
    const first = repository.get('local');
    const [url, state, pkceVerifier, nonce] = await first.authorizationUrl();
    const callback = await op.login(url);
    // Replayed at the other registration with the transaction it issued itself:
    const [, otherState, otherVerifier, otherNonce] = await repository
      .get('other')
      .authorizationUrl();
    await expect(
      repository.get('other').handleCallback(callback, {
        state: otherState,
        pkceVerifier: otherVerifier,
        nonce: otherNonce,
      }),
    ).rejects.toMatchObject({ code: 'ERR_OAUTH2_STATE' });
    // Even with the stolen transaction, the code belongs to the first client:
    await expect(
      repository.get('other').handleCallback(callback, { state, pkceVerifier, nonce }),
    ).rejects.toMatchObject({ code: 'ERR_OAUTH2_TOKEN_EXCHANGE', providerError: 'invalid_grant' });
  });
});
