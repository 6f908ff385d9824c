import { describe, expect, it } from 'vitest';
import {
  ALICE,
  PASSWORD_1,
  PASSWORD_2,
  cookieValue,
  csrfTokenWith,
  makeSessions,
  request,
} from './support.js';

const OLD = { passwords: { 1: PASSWORD_1 } };
const BOTH = { passwords: { 1: PASSWORD_1, 2: PASSWORD_2 } };
const NEW = { passwords: { 2: PASSWORD_2 } };

const sameOrigin = { 'sec-fetch-site': 'same-origin' };
const get = (cookie: string) => request({ cookie, headers: sameOrigin });

describe('password rotation', () => {
  it('a seal of password 1 opens with {1, 2}; new seals use password 2', async () => {
    const before = makeSessions(OLD);
    const old = await before.sessions.logIn(ALICE);
    expect(cookieValue(old)).toMatch(/^Fe26\.2\*1\*/u);

    const during = makeSessions(BOTH);
    expect((await during.sessions.authenticate(get(old)))?.username).toBe('alice');
    const fresh = await during.sessions.logIn(ALICE);
    expect(cookieValue(fresh)).toMatch(/^Fe26\.2\*2\*/u);
    // A login while rotating also gives a seal only the new password opens.
    expect((await makeSessions(NEW).sessions.authenticate(get(fresh)))?.username).toBe('alice');
    // And the pre-login session of the login page too.
    const { setCookie } = await during.sessions.csrfToken(request());
    expect(cookieValue(setCookie ?? '')).toMatch(/^Fe26\.2\*2\*/u);
  });

  it('the newest id seals whatever the order of the map, numerically (10 > 9)', async () => {
    const fixture = makeSessions({ passwords: { 10: PASSWORD_2, 9: PASSWORD_1 } });
    expect(cookieValue(await fixture.sessions.logIn(ALICE))).toMatch(/^Fe26\.2\*10\*/u);
  });

  it('once password 1 is removed, its seals are anonymous (invalid-session)', async () => {
    const old = await makeSessions(OLD).sessions.logIn(ALICE);
    const after = makeSessions(NEW);
    expect(await after.sessions.authenticate(get(old))).toBeNull();
    expect(after.received).toMatchObject([
      { type: 'authentication-failure', reason: 'invalid-session' },
    ]);
  });

  it('CSRF tokens follow the same rotation', async () => {
    // A login page served before the rotation: a pre-login session and its token, both of password 1.
    const before = makeSessions(OLD);
    const page = await before.sessions.csrfToken(request());
    expect(page.token).toMatch(/^1\./u);
    const cookie = page.setCookie ?? '';

    // During the rotation the old form still posts: the old token is accepted.
    const during = makeSessions(BOTH);
    expect(await during.sessions.verifyCsrfToken(get(cookie), page.token)).toBe(true);
    // New tokens (same session) use password 2, and are accepted too.
    const renewed = await during.sessions.csrfToken(get(cookie));
    expect(renewed.setCookie).toBeUndefined();
    expect(renewed.token).toMatch(/^2\./u);
    expect(renewed.token).not.toBe(page.token);
    expect(await during.sessions.verifyCsrfToken(get(cookie), renewed.token)).toBe(true);

    // After the rotation, a token of password 1 is refused even for a session sealed by 2.
    const session = await during.sessions.logIn(ALICE);
    const sid = String((await during.sessions.authenticate(get(session)))?.attributes['sessionId']);
    const oldToken = csrfTokenWith(OLD.passwords, '1', sid);
    const newToken = csrfTokenWith(NEW.passwords, '2', sid);
    expect(await during.sessions.verifyCsrfToken(get(session), oldToken)).toBe(true);
    const after = makeSessions(NEW);
    expect(await after.sessions.verifyCsrfToken(get(session), newToken)).toBe(true);
    expect(await after.sessions.verifyCsrfToken(get(session), oldToken)).toBe(false);
    // The header check of authenticate agrees.
    const post = (token: string) =>
      request({
        method: 'POST',
        cookie: session,
        headers: { ...sameOrigin, 'x-csrf-token': token },
      });
    expect(await after.sessions.authenticate(post(newToken))).not.toBeNull();
    expect(await after.sessions.authenticate(post(oldToken))).toBeNull();
  });

  it('a token naming password 2 but made with password 1 is refused', async () => {
    const fixture = makeSessions(BOTH);
    const session = await fixture.sessions.logIn(ALICE);
    const sid = String(
      (await fixture.sessions.authenticate(get(session)))?.attributes['sessionId'],
    );
    const forged = csrfTokenWith({ 2: PASSWORD_1 }, '2', sid);
    expect(await fixture.sessions.verifyCsrfToken(get(session), forged)).toBe(false);
  });
});
