import { describe, expect, it } from 'vitest';
import { SecurityEvents } from '../../src/index.js';
import {
  MemorySessionStore,
  SessionAuthenticator,
  SessionConfig,
  type SessionConfigOptions,
} from '../../src/session/index.js';
import {
  ALICE,
  PASSWORD_1,
  cookieAttributes,
  cookiePair,
  makeSessions,
  request,
  thrown,
} from './support.js';

const SHORT = 'short-password-31-characters-xx';

describe('cookie attributes', () => {
  it('by default: __Host-session; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age = maxAge; no Domain', async () => {
    const { sessions } = makeSessions();
    expect(sessions.cookieName).toBe('__Host-session');
    const setCookie = await sessions.logIn(ALICE);
    expect(cookiePair(setCookie)).toMatch(/^__Host-session=Fe26\.2\*1\*[^;\s]+~2$/u);
    expect(Object.fromEntries(cookieAttributes(setCookie))).toEqual({
      path: '/',
      'max-age': '28800',
      httponly: '',
      samesite: 'Lax',
      secure: '',
    });
  });

  it('Max-Age follows maxAgeSeconds / maxAgeHours, for the pre-login session too', async () => {
    const { sessions } = makeSessions({ maxAgeSeconds: 600 });
    expect(cookieAttributes(await sessions.logIn(ALICE)).get('max-age')).toBe('600');
    const { setCookie } = await sessions.csrfToken(request());
    expect(cookieAttributes(setCookie ?? '').get('max-age')).toBe('600');
    const hours = new SessionAuthenticator(
      new SessionConfig().passwords(PASSWORD_1).maxAgeHours(2),
    );
    expect(cookieAttributes(await hours.logIn(ALICE)).get('max-age')).toBe('7200');
  });

  it("logout's cookie deletes it with the same name, path and attributes", async () => {
    const { sessions } = makeSessions();
    const deleting = await sessions.logOut(request({ cookie: await sessions.logIn(ALICE) }));
    expect(deleting).toBe(sessions.clearCookie());
    expect(cookiePair(deleting)).toBe('__Host-session=');
    expect(Object.fromEntries(cookieAttributes(deleting))).toEqual({
      path: '/',
      'max-age': '0',
      httponly: '',
      samesite: 'Lax',
      secure: '',
      expires: 'Thu, 01 Jan 1970 00:00:00 GMT',
    });
  });

  it('insecure development: name session, no Secure', async () => {
    const { sessions } = makeSessions({ dangerouslyAllowInsecureCookie: true });
    expect(sessions.cookieName).toBe('session');
    const setCookie = await sessions.logIn(ALICE);
    expect(setCookie).toMatch(/^session=Fe26/u);
    expect(cookieAttributes(setCookie).has('secure')).toBe(false);
    expect(cookieAttributes(setCookie).get('httponly')).toBe('');
    expect(cookieAttributes(sessions.clearCookie()).has('secure')).toBe(false);
  });

  it('SameSite=Strict, and SameSite=None (Secure) when dangerously allowed', async () => {
    const strict = makeSessions({ sameSite: 'Strict' }).sessions;
    expect(cookieAttributes(await strict.logIn(ALICE)).get('samesite')).toBe('Strict');
    expect(cookieAttributes(strict.clearCookie()).get('samesite')).toBe('Strict');
    const none = makeSessions({ dangerouslyAllowSameSiteNone: true }).sessions;
    const setCookie = await none.logIn(ALICE);
    expect(cookieAttributes(setCookie).get('samesite')).toBe('None');
    expect(cookieAttributes(setCookie).get('secure')).toBe('');
  });

  it('dangerouslySetDomain: a Domain attribute and no __Host- prefix', async () => {
    const { sessions } = makeSessions({ dangerouslySetDomain: 'app.example' });
    expect(sessions.cookieName).toBe('session');
    const attributes = cookieAttributes(await sessions.logIn(ALICE));
    expect(attributes.get('domain')).toBe('app.example');
    expect(attributes.get('secure')).toBe('');
    expect(cookieAttributes(sessions.clearCookie()).get('domain')).toBe('app.example');
  });

  it('a custom cookie name is the only one read', async () => {
    const custom = makeSessions({ cookieName: '__Secure-id' }).sessions;
    const setCookie = await custom.logIn(ALICE);
    expect(setCookie).toMatch(/^__Secure-id=Fe26/u);
    const seal = cookiePair(setCookie).slice('__Secure-id='.length);
    expect(await custom.authenticate(request({ cookie: `__Host-session=${seal}` }))).toBeNull();
    expect((await custom.authenticate(request({ cookie: setCookie })))?.username).toBe('alice');
  });

  it('when the cookie name repeats, the first cookie is the one read', async () => {
    const { sessions } = makeSessions();
    const alice = cookiePair(await sessions.logIn(ALICE));
    const header = `${alice}; __Host-session=garbage`;
    expect((await sessions.authenticate(request({ cookie: header })))?.username).toBe('alice');
  });
});

describe('configuration errors', () => {
  const configError = (options: unknown) =>
    thrown(() => new SessionAuthenticator(options as SessionConfigOptions));

  it('passwords shorter than 32 characters, in any form, never echoing the password', () => {
    for (const passwords of [SHORT, { 1: SHORT }, { 1: PASSWORD_1, 2: SHORT }, '']) {
      const error = configError({ passwords });
      expect(error).toMatchObject({ code: 'ERR_INVALID_OPTION', option: 'passwords' });
      expect((error as Error).message).not.toContain(SHORT);
    }
    // One more character is enough.
    expect(new SessionAuthenticator({ passwords: `${SHORT}x` }).cookieName).toBe('__Host-session');
  });

  it('missing or empty passwords, bad ids', () => {
    expect(thrown(() => new SessionAuthenticator(new SessionConfig()))).toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option: 'passwords',
    });
    for (const passwords of [
      {},
      null,
      42,
      { 0: PASSWORD_1 },
      { '-1': PASSWORD_1 },
      { a: PASSWORD_1 },
      { '01': PASSWORD_1 },
      { '1.5': PASSWORD_1 },
      { 1e10: PASSWORD_1 },
    ]) {
      expect(configError({ passwords })).toMatchObject({
        code: 'ERR_INVALID_OPTION',
        option: 'passwords',
      });
    }
  });

  it('a __Host- or __Secure- name that its attributes would break', () => {
    const cases: [SessionConfigOptions, string][] = [
      [{ cookieName: '__Host-s', dangerouslyAllowInsecureCookie: true }, 'cookieName'],
      [{ cookieName: '__Host-s', dangerouslySetDomain: 'app.example' }, 'cookieName'],
      [{ cookieName: '__Secure-s', dangerouslyAllowInsecureCookie: true }, 'cookieName'],
      [{ dangerouslyAllowSameSiteNone: true, dangerouslyAllowInsecureCookie: true }, 'sameSite'],
    ];
    for (const [options, option] of cases) {
      expect(configError({ passwords: PASSWORD_1, ...options })).toMatchObject({
        code: 'ERR_INVALID_OPTION',
        option,
      });
    }
  });

  it('SameSite=None only through its dangerous switch', () => {
    expect(thrown(() => new SessionConfig().sameSite('None' as 'Lax'))).toMatchObject({
      option: 'sameSite',
    });
    expect(configError({ passwords: PASSWORD_1, sameSite: 'none' })).toMatchObject({
      option: 'sameSite',
    });
  });

  it('unknown options, with a suggestion', () => {
    const error = configError({ password: PASSWORD_1 });
    expect(error).toMatchObject({ code: 'ERR_INVALID_OPTION', option: 'password' });
    expect((error as Error).message).toContain('"passwords"');
    expect(configError({ passwords: PASSWORD_1, maxAge: 60 })).toMatchObject({ option: 'maxAge' });
    expect(
      thrown(
        () => new SessionAuthenticator({ passwords: PASSWORD_1 }, { clok: Date.now } as never),
      ),
    ).toMatchObject({ option: 'clok' });
  });

  it('bad values of each option', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ userKey: 'sid' }, 'userKey'],
      [{ userKey: 'v' }, 'userKey'],
      [{ userKey: '__proto__' }, 'userKey'],
      [{ userKey: 'a-b' }, 'userKey'],
      [{ authenticatedKey: '' }, 'authenticatedKey'],
      [{ userKey: 'same', authenticatedKey: 'same' }, 'authenticatedKey'],
      [{ cookieName: 'a;b' }, 'cookieName'],
      [{ cookieName: 'a b' }, 'cookieName'],
      [{ cookieName: 'a=b' }, 'cookieName'],
      [{ maxAgeSeconds: 59 }, 'maxAgeSeconds'],
      [{ maxAgeSeconds: 1.5 * 3600 + 0.5 }, 'maxAgeSeconds'],
      [{ maxAgeSeconds: 401 * 86_400 }, 'maxAgeSeconds'],
      [{ idleTimeoutSeconds: 0 }, 'idleTimeoutSeconds'],
      [{ trustedOrigins: ['https://admin.example/path'] }, 'trustedOrigins'],
      [{ trustedOrigins: ['admin.example'] }, 'trustedOrigins'],
      [{ trustedOrigins: ['ftp://admin.example'] }, 'trustedOrigins'],
      [{ trustedOrigins: ['*'] }, 'trustedOrigins'],
      [{ origins: ['null'] }, 'origins'],
      [{ csrfHeaderName: 'x csrf' }, 'csrfHeaderName'],
      [{ csrfFieldName: '' }, 'csrfFieldName'],
      [{ dangerouslySetDomain: 'a.example; Secure' }, 'dangerouslySetDomain'],
      [{ dangerouslyDisableCsrf: 'yes' }, 'dangerouslyDisableCsrf'],
      [{ dangerouslyAllowInsecureCookie: 1 }, 'dangerouslyAllowInsecureCookie'],
    ];
    for (const [options, option] of cases) {
      expect(configError({ passwords: PASSWORD_1, ...options })).toMatchObject({
        code: 'ERR_INVALID_OPTION',
        option,
      });
    }
  });

  it('bad authenticator options', () => {
    const make = (options: object) =>
      thrown(() => new SessionAuthenticator({ passwords: PASSWORD_1 }, options));
    expect(make({ store: {} })).toMatchObject({ option: 'store' });
    expect(make({ events: {} })).toMatchObject({ option: 'events' });
    expect(make({ loadUser: 'users' })).toMatchObject({ option: 'loadUser' });
    expect(make({ clock: 5 })).toMatchObject({ option: 'clock' });
    expect(thrown(() => new MemorySessionStore({ maxRevocations: 0 }))).toMatchObject({
      option: 'maxRevocations',
    });
    expect(thrown(() => new MemorySessionStore({ clock: 1 as never }))).toMatchObject({
      option: 'clock',
    });
  });

  it('origins are stored in canonical form; the caller options are not changed', () => {
    const options = Object.freeze({
      passwords: Object.freeze({ 1: PASSWORD_1 }),
      trustedOrigins: Object.freeze(['https://admin.example', 'http://localhost:3000/']),
    });
    const sessions = new SessionAuthenticator(options, { events: new SecurityEvents() });
    expect(sessions.settings.trustedOrigins).toEqual([
      'https://admin.example',
      'http://localhost:3000',
    ]);
    expect(options.trustedOrigins).toEqual(['https://admin.example', 'http://localhost:3000/']);
    // Browsers send Origin in canonical form: other spellings are normalized to it.
    const spelled = new SessionAuthenticator(
      {
        passwords: PASSWORD_1,
        trustedOrigins: ['https://Admin.Example', 'https://admin.example:443'],
      },
      { events: new SecurityEvents() },
    );
    expect(spelled.settings.trustedOrigins).toEqual([
      'https://admin.example',
      'https://admin.example',
    ]);
    for (const origin of [
      'https://admin.example/app',
      'https://u@admin.example',
      'https://a.example?x',
    ]) {
      expect(configError({ passwords: PASSWORD_1, trustedOrigins: [origin] })).toMatchObject({
        option: 'trustedOrigins',
      });
    }
  });
});
