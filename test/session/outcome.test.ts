import { describe, expect, it } from 'vitest';
import { ALICE, cookiePair, makeSessions, request } from './support.js';

describe('SessionAuthenticator.attempt', () => {
  it('answers each kind of cookie with its explicit outcome', async () => {
    const { sessions, clock, received } = makeSessions({ maxAgeSeconds: 3600 });
    const cookie = await sessions.logIn(ALICE);
    const outcome = await sessions.attempt(request({ cookie }));
    expect(outcome).toMatchObject({
      kind: 'authenticated',
      user: { username: 'alice', authenticationMethod: 'session' },
    });

    // A tampered cookie: failed, once per request, with one event.
    const [name, value = ''] = cookiePair(cookie).split('=');
    const tampered = `${name ?? ''}=${value.slice(0, -4)}AAAA`;
    const before = received.length;
    expect(await sessions.attempt(request({ cookie: tampered }))).toEqual({
      kind: 'failed',
      reason: 'invalid-session',
      username: undefined,
      challenge: undefined,
    });
    expect(received.slice(before)).toMatchObject([
      { type: 'authentication-failure', reason: 'invalid-session' },
    ]);

    // A pre-login session (made for a login form's CSRF token) is nobody.
    const { setCookie } = await sessions.csrfToken(request());
    expect(await sessions.attempt(request({ cookie: setCookie as string }))).toEqual({
      kind: 'anonymous',
    });

    // Logged out: failed, naming the user for the events.
    await sessions.logOut(request({ cookie }));
    expect(await sessions.attempt(request({ cookie }))).toMatchObject({
      kind: 'failed',
      reason: 'invalid-session',
      username: 'alice',
    });

    // Expired.
    const fresh = await sessions.logIn(ALICE);
    clock.advance(3600 * 1000 + 1);
    expect(await sessions.attempt(request({ cookie: fresh }))).toMatchObject({
      kind: 'failed',
      reason: 'invalid-session',
    });
  });
});
