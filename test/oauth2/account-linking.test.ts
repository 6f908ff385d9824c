import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { User } from '../../src/index.js';
import {
  MemoryOAuth2AccountRepository,
  accountLinkingMapper,
  type OAuth2AccountRepository,
  type OAuth2UserCreator,
} from '../../src/oauth2/account-linking.js';
import type { OAuth2MapperContext } from '../../src/oauth2/routes/options.js';
import { MemoryUserRepository } from '../../src/users/memory-user-repository.js';
import {
  callback,
  CookieJar,
  GOOD_CODE,
  makeFixture,
  nodeHarness,
  oauth2User,
  sessionUser,
  startLogin,
  type Fixture,
  type Harness,
} from './routes-support.js';

const context = {} as OAuth2MapperContext;

/** Creates `provider:subject` users with role USER in `users`, counting the calls. */
function creator(users: MemoryUserRepository): OAuth2UserCreator & { calls: number } {
  const create = Object.assign(
    async (profile: { provider: string; subject: string }) => {
      const n = ++create.calls;
      // Let a concurrent first login run between the check and the link.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const username = `${profile.provider}:${profile.subject}:${n}`;
      const user = new User(username, '', ['USER']);
      users.createUser(user);
      return user;
    },
    { calls: 0 },
  );
  return create;
}

describe('accountLinkingMapper', () => {
  let users: MemoryUserRepository;
  let accounts: MemoryOAuth2AccountRepository;

  beforeEach(() => {
    users = new MemoryUserRepository();
    accounts = new MemoryOAuth2AccountRepository();
  });

  it('creates the user of a new provider account once, then finds it by provider and subject', async () => {
    const createUser = creator(users);
    const mapper = accountLinkingMapper({ accounts, users, createUser });
    const first = await mapper(oauth2User('google', 'alice'), context);
    const again = await mapper(oauth2User('google', 'alice'), context);
    expect(first?.username).toBe('google:alice:1');
    expect(again?.username).toBe('google:alice:1');
    expect(createUser.calls).toBe(1);
  });

  it('two first logins of one provider account at once end on one user (the first link wins)', async () => {
    const createUser = creator(users);
    const mapper = accountLinkingMapper({ accounts, users, createUser });
    const [a, b] = await Promise.all([
      mapper(oauth2User('google', 'bob'), context),
      mapper(oauth2User('google', 'bob'), context),
    ]);
    expect(a?.username).toBeDefined();
    expect(a?.username).toBe(b?.username);
    expect(accounts.findLinkedUsername('google', 'bob')).toBe(a?.username);
    expect(users.size).toBe(2); // the other created user is left unlinked
  });

  it('never links by email: the same verified email at another provider is another account', async () => {
    const mapper = accountLinkingMapper({ accounts, users, createUser: creator(users) });
    const email = { email: 'carol@example.com', emailVerified: true };
    const google = await mapper(oauth2User('google', 'carol', email), context);
    const github = await mapper(oauth2User('github', 'carol', email), context);
    expect(google?.username).not.toBe(github?.username);
  });

  it('a provider and subject cannot forge another pair (no separator confusion)', async () => {
    users.createUser(new User('victim', '', ['ADMIN']));
    accounts.linkProviderAccount('a', 'b:c', 'victim');
    const mapper = accountLinkingMapper({ accounts, users });
    expect(await mapper(oauth2User('a:b', 'c'), context)).toBeNull();
    expect(await mapper(oauth2User('a', 'b:c'), context)).toBeInstanceOf(User);
  });

  it('without createUser, an unknown provider account is refused (no sign-up)', async () => {
    const mapper = accountLinkingMapper({ accounts, users });
    expect(await mapper(oauth2User('google', 'stranger'), context)).toBeNull();
    expect(users.size).toBe(0);
  });

  it.each([
    ['disabled', { enabled: false }],
    ['locked', { locked: true }],
    ['expired', { accountExpired: true }],
  ] as const)('a linked user whose account is %s is refused', async (_, state) => {
    users.createUser(new User('dave', '', ['USER']).withAccountState(state));
    accounts.linkProviderAccount('google', 'dave', 'dave');
    const mapper = accountLinkingMapper({ accounts, users });
    expect(await mapper(oauth2User('google', 'dave'), context)).toBeNull();
  });

  it('a link whose user was deleted is refused, not recreated under another name', async () => {
    const createUser = creator(users);
    const mapper = accountLinkingMapper({ accounts, users, createUser });
    const first = await mapper(oauth2User('google', 'erin'), context);
    users.deleteUser(first?.username ?? '');
    expect(await mapper(oauth2User('google', 'erin'), context)).toBeNull();
    expect(createUser.calls).toBe(1);
  });

  it('refuses a misconfiguration at once', () => {
    expect(() =>
      accountLinkingMapper({ accounts: {} as unknown as OAuth2AccountRepository, users }),
    ).toThrow(/accounts: must be an OAuth2AccountRepository/u);
    expect(() =>
      accountLinkingMapper({ accounts, users, createUser: 'yes' as unknown as OAuth2UserCreator }),
    ).toThrow(/createUser: must be a function/u);
  });
});

describe('accountLinkingMapper in oauth2Login', () => {
  let fixture: Fixture;
  let harness: Harness;
  let users: MemoryUserRepository;

  beforeEach(async () => {
    users = new MemoryUserRepository();
    const accounts = new MemoryOAuth2AccountRepository();
    fixture = makeFixture({
      mapper: accountLinkingMapper({ accounts, users, createUser: creator(users) }),
    });
    harness = await nodeHarness(fixture.login);
  });
  afterEach(() => harness.close());

  it('the first login creates and logs in the linked user; a locked one is then refused', async () => {
    const jar = new CookieJar();
    const { state } = await startLogin(harness, jar);
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    expect(reply.location).toBe('/');
    const username = await sessionUser(fixture.sessions, jar);
    expect(username).toBe('google:google-subject:1');

    const user = users.findByUsername(username ?? '');
    users.updateUser((user as User).withAccountState({ locked: true }));
    const other = new CookieJar();
    const again = await startLogin(harness, other);
    const refused = await callback(
      harness,
      other,
      'google',
      `code=${GOOD_CODE}&state=${again.state}`,
    );
    expect(refused.location).toBe('/login?error=oauth2');
    expect(await sessionUser(fixture.sessions, other)).toBeNull();
  });
});
