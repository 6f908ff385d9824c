import { sealData } from 'iron-session';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { User } from '../../src/index.js';
import {
  ALICE,
  NOW,
  PASSWORD_1,
  PASSWORD_2,
  cookieValue,
  makeSessions,
  request,
  type SessionsFixture,
} from './support.js';

const MAX_AGE = 8 * 3600;
const SID = 'AAAAAAAAAAAAAAAAAAAAAA';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});
afterEach(() => {
  vi.useRealTimers();
});

/** The request of a browser sending `value` as the session cookie. */
function withSeal(fixture: SessionsFixture, value: string, method = 'GET') {
  return request({
    method,
    cookie: `${fixture.sessions.cookieName}=${value}`,
    headers: { 'sec-fetch-site': 'same-origin' },
  });
}

/** Every way a cookie is opened: all anonymous, none throws. */
async function expectAnonymous(fixture: SessionsFixture, value: string): Promise<void> {
  const { sessions } = fixture;
  expect(await sessions.authenticate(withSeal(fixture, value))).toBeNull();
  expect(await sessions.getUser(withSeal(fixture, value))).toBeNull();
  expect(await sessions.authenticate(withSeal(fixture, value, 'POST'))).toBeNull();
  expect(await sessions.verifyCsrfToken(withSeal(fixture, value), 'x')).toBe(false);
  // The login page still gets a token: a fresh pre-login session replaces the bad cookie.
  const { token, setCookie } = await sessions.csrfToken(withSeal(fixture, value));
  expect(token).toMatch(/^[0-9]+\.[A-Za-z0-9_-]{43}$/u);
  expect(setCookie).toBeDefined();
}

async function aliceSeal(fixture: SessionsFixture): Promise<string> {
  return cookieValue(await fixture.sessions.logIn(ALICE));
}

/** Replaces the character in the middle of `text` by another of the same kind. */
function flipMiddle(text: string): string {
  const i = Math.floor(text.length / 2);
  const c = text.charAt(i);
  const replacement = /[0-9]/u.test(c) ? String((Number(c) + 1) % 10) : c === 'a' ? 'b' : 'a';
  return `${text.slice(0, i)}${replacement}${text.slice(i + 1)}`;
}

describe('a valid seal', () => {
  it('authenticates the user it was made for, rebuilt from the stored fields', async () => {
    const fixture = makeSessions();
    const admin = new User('root', '').withRoles(['ADMIN', 'USER']).withAuthorities(['a:b']);
    const seal = cookieValue(await fixture.sessions.logIn(admin));
    expect(seal).toMatch(/^Fe26\.2\*1\*.+~2$/u);
    const user = await fixture.sessions.authenticate(withSeal(fixture, seal));
    expect(user?.username).toBe('root');
    expect([...(user?.roles ?? [])].sort()).toEqual(['ADMIN', 'USER']);
    expect([...(user?.authorities ?? [])]).toEqual(['a:b']);
    expect(user?.authenticationMethod).toBe('session');
    expect(user?.attributes['sessionId']).toMatch(/^[A-Za-z0-9_-]{22}$/u);
    expect(fixture.received).toEqual([]);
  });
});

describe('a tampered seal is anonymous', () => {
  it('one character flipped in each of its parts', async () => {
    const fixture = makeSessions({ passwords: { 1: PASSWORD_1, 2: PASSWORD_2 } });
    const seal = await aliceSeal(fixture);
    const body = seal.slice(0, -2);
    const parts = body.split('*');
    // Fe26.2, password id, encryption salt, iv, ciphertext, expiration, hmac salt, hmac
    expect(parts).toHaveLength(8);
    for (const [index, part] of parts.entries()) {
      const tampered = [...parts];
      tampered[index] = index === 1 ? '1' : flipMiddle(part);
      expect(tampered[index]).not.toBe(part);
      await expectAnonymous(fixture, `${tampered.join('*')}~2`);
    }
    // The format marker.
    await expectAnonymous(fixture, `${body}~1`);
    await expectAnonymous(fixture, `${body}~3`);
    // The untouched seal still works: the flips, not the fixture, made it fail.
    expect(await fixture.sessions.authenticate(withSeal(fixture, seal))).not.toBeNull();
  });

  it('truncated anywhere, or without its ~2 marker', async () => {
    const fixture = makeSessions();
    const seal = await aliceSeal(fixture);
    for (const length of [1, 10, 40, seal.length / 2, seal.length - 3, seal.length - 1]) {
      await expectAnonymous(fixture, seal.slice(0, Math.floor(length)));
    }
    await expectAnonymous(fixture, seal.slice(0, -2));
    await expectAnonymous(fixture, `${seal}x`);
  });

  it('sealed with another password, or naming an unknown password id', async () => {
    const fixture = makeSessions();
    const other = makeSessions({ passwords: PASSWORD_2 });
    await expectAnonymous(fixture, await aliceSeal(other));
    const seal = await aliceSeal(fixture);
    await expectAnonymous(fixture, seal.replace(/^Fe26\.2\*1\*/u, 'Fe26.2*7*'));
    await expectAnonymous(fixture, seal.replace(/^Fe26\.2\*1\*/u, 'Fe26.2*999999999*'));
  });

  it('garbage and huge values never reach the crypto and never throw', async () => {
    const fixture = makeSessions();
    const seal = await aliceSeal(fixture);
    const values = [
      'x',
      'null',
      '{"user":{"username":"root"},"authenticated":true}',
      'Fe26.2*',
      'Fe26.2**~2',
      'Fe26.2*1*~2',
      'Fe26.2*1*a*b*c*d*e*f~2',
      'Fe26.2*1*!!!*b*c*d*e*f~2',
      'Fe26.2*1*%zz*b*c*d*e*f~2',
      `Fe26.2*1*${'A'.repeat(5000)}~2`,
      `${seal.slice(0, -2)}${'A'.repeat(5000)}~2`,
      'é'.repeat(100),
      '\u0000~2',
    ];
    for (const value of values) await expectAnonymous(fixture, value);
  });

  it('publishes authentication-failure (invalid-session) without the cookie', async () => {
    const fixture = makeSessions();
    const seal = await aliceSeal(fixture);
    const tampered = flipMiddle(seal);
    expect(await fixture.sessions.authenticate(withSeal(fixture, tampered))).toBeNull();
    expect(fixture.received).toEqual([
      {
        type: 'authentication-failure',
        username: undefined,
        authenticationMethod: 'session',
        reason: 'invalid-session',
        request: { method: 'GET', path: '/', clientAddress: '127.0.0.1' },
      },
    ]);
    expect(JSON.stringify(fixture.received)).not.toContain(tampered.slice(10, 40));
  });

  it('no cookie or an empty one is simply anonymous, with no event', async () => {
    const fixture = makeSessions();
    expect(await fixture.sessions.authenticate(request())).toBeNull();
    expect(await fixture.sessions.authenticate(withSeal(fixture, ''))).toBeNull();
    expect(fixture.received).toEqual([]);
  });
});

describe('an expired seal is anonymous', () => {
  it("past iron's TTL (the seal's own expiry), whatever the session clock says", async () => {
    const fixture = makeSessions();
    const seal = await aliceSeal(fixture);
    // iron allows 60 s of clock skew past the TTL.
    vi.setSystemTime(NOW + (MAX_AGE + 59) * 1000);
    expect(await fixture.sessions.authenticate(withSeal(fixture, seal))).not.toBeNull();
    vi.setSystemTime(NOW + (MAX_AGE + 61) * 1000);
    await expectAnonymous(fixture, seal);
    expect(fixture.received.at(-1)).toMatchObject({ reason: 'invalid-session' });
  });

  it('past the absolute maxAge from login, by the session clock', async () => {
    const fixture = makeSessions({ maxAgeSeconds: 3600 });
    const seal = await aliceSeal(fixture);
    fixture.clock.advance(3600 * 1000 - 1);
    expect(await fixture.sessions.authenticate(withSeal(fixture, seal))).not.toBeNull();
    fixture.clock.advance(1);
    expect(await fixture.sessions.authenticate(withSeal(fixture, seal))).toBeNull();
    expect(fixture.received).toMatchObject([
      { type: 'authentication-failure', reason: 'invalid-session' },
    ]);
  });

  it('a session issued in the future by a skewed clock still ends maxAge after its iat', async () => {
    const fixture = makeSessions({ maxAgeSeconds: 3600 });
    fixture.clock.set(NOW + 10 * 3600 * 1000);
    const seal = await aliceSeal(fixture);
    fixture.clock.set(NOW + 11 * 3600 * 1000);
    expect(await fixture.sessions.authenticate(withSeal(fixture, seal))).toBeNull();
  });
});

describe("a seal of another application's data shape is anonymous", () => {
  const user = { username: 'root', roles: ['ADMIN'], authorities: [] };
  const valid = { v: 1, sid: SID, iat: NOW, authenticated: true, user };
  const shapes: Readonly<Record<string, object>> = {
    'no v, sid or iat': { authenticated: true, user },
    'no v': { sid: SID, iat: NOW, authenticated: true, user },
    'another version': { ...valid, v: 2 },
    'v as a string': { ...valid, v: '1' },
    'a short sid': { ...valid, sid: 'abc' },
    'a sid that is not a string': { ...valid, sid: 12 },
    'iat as a string': { ...valid, iat: String(NOW) },
    'authenticated: "true"': { ...valid, authenticated: 'true' },
    'authenticated: 1': { ...valid, authenticated: 1 },
    'no authenticated flag': { v: 1, sid: SID, iat: NOW, user },
    'authenticated without a user': { v: 1, sid: SID, iat: NOW, authenticated: true },
    'roles not a list': { ...valid, user: { ...user, roles: 'ADMIN' } },
    'roles with a number': { ...valid, user: { ...user, roles: ['ADMIN', 1] } },
    'authorities missing': { ...valid, user: { username: 'root', roles: ['ADMIN'] } },
    'an empty username': { ...valid, user: { ...user, username: '' } },
    'a username that is not a string': { ...valid, user: { ...user, username: ['root'] } },
    'the user inherited through __proto__': {
      ...valid,
      user: JSON.parse(
        '{"__proto__":{"username":"root","roles":["ADMIN"],"authorities":[]}}',
      ) as unknown,
    },
    'the user a string': { ...valid, user: 'root' },
    'an array': [valid],
  };

  for (const [name, data] of Object.entries(shapes)) {
    it(name, async () => {
      const fixture = makeSessions();
      const seal = await sealData(data, {
        password: { 1: PASSWORD_1 },
        ttl: MAX_AGE,
      });
      await expectAnonymous(fixture, seal);
    });
  }

  it('while the same shape with every field right is accepted (the fixture is sound)', async () => {
    const fixture = makeSessions();
    const seal = await sealData(valid, { password: { 1: PASSWORD_1 }, ttl: MAX_AGE });
    expect((await fixture.sessions.authenticate(withSeal(fixture, seal)))?.username).toBe('root');
  });

  it('an anonymous (pre-login) session with a user inside stays anonymous', async () => {
    const fixture = makeSessions();
    const seal = await sealData(
      { ...valid, authenticated: false },
      { password: { 1: PASSWORD_1 }, ttl: MAX_AGE },
    );
    expect(await fixture.sessions.authenticate(withSeal(fixture, seal))).toBeNull();
    // It is a session (its CSRF token works) but no one is logged in.
    const { token, setCookie } = await fixture.sessions.csrfToken(withSeal(fixture, seal));
    expect(setCookie).toBeUndefined();
    expect(await fixture.sessions.verifyCsrfToken(withSeal(fixture, seal), token)).toBe(true);
  });

  it('custom userKey / authenticatedKey: a seal with the default keys is anonymous', async () => {
    const fixture = makeSessions({ userKey: 'principal', authenticatedKey: 'loggedIn' });
    const seal = await sealData(valid, { password: { 1: PASSWORD_1 }, ttl: MAX_AGE });
    await expectAnonymous(fixture, seal);
    const own = await sealData(
      { v: 1, sid: SID, iat: NOW, loggedIn: true, principal: user },
      { password: { 1: PASSWORD_1 }, ttl: MAX_AGE },
    );
    expect((await fixture.sessions.authenticate(withSeal(fixture, own)))?.username).toBe('root');
  });
});
