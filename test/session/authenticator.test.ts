import { describe, expect, it } from 'vitest';
import { SecurityEvents, User } from '../../src/index.js';
import { SessionAuthenticator } from '../../src/session/index.js';
import { ALICE, PASSWORD_1, cookiePair, makeSessions, request, thrown } from './support.js';

describe('SessionAuthenticator', () => {
  it('getUser gives the stored user without any password', async () => {
    const { sessions } = makeSessions();
    const cookie = await sessions.logIn(ALICE.withAuthorities(['posts:read']));
    const user = await sessions.getUser(request({ cookie }));
    expect(user).toBeInstanceOf(User);
    expect(user?.username).toBe('alice');
    expect(user?.password).toBe('');
    expect([...(user?.roles ?? [])]).toEqual(['USER']);
    expect([...(user?.authorities ?? [])]).toEqual(['posts:read']);
  });

  it('accepts node requests and Fetch Requests for csrfToken, verifyCsrfToken and logOut', async () => {
    const { sessions } = makeSessions();
    const cookie = cookiePair(await sessions.logIn(ALICE));
    const node = { method: 'GET', url: '/', headers: { cookie }, socket: {} };
    const fetchRequest = new Request('https://app.example/', { headers: { cookie } });
    const fromNode = await sessions.csrfToken(node as never);
    const fromFetch = await sessions.csrfToken(fetchRequest);
    expect(fromNode.setCookie).toBeUndefined();
    expect(fromFetch.token).toBe(fromNode.token);
    expect(await sessions.verifyCsrfToken(node as never, fromFetch.token)).toBe(true);
    expect(await sessions.verifyCsrfToken(fetchRequest, fromNode.token)).toBe(true);
    expect(await sessions.verifyCsrfToken(fetchRequest, undefined)).toBe(false);
    expect(await sessions.verifyCsrfToken(fetchRequest, ['x'])).toBe(false);
    await sessions.logOut(fetchRequest);
    expect(await sessions.authenticate(request({ cookie }))).toBeNull();
  });

  it('refuses something that is not a request', async () => {
    const { sessions } = makeSessions();
    await expect(sessions.csrfToken({} as never)).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option: 'request',
    });
  });

  it('a publisher that throws never breaks authentication', async () => {
    const events = new SecurityEvents();
    events.on('*', () => {
      throw new Error('listener failed');
    });
    const faulty = {
      hasListeners: true,
      publish: () => {
        throw new Error('publisher failed');
      },
    };
    for (const publisher of [events, faulty]) {
      const sessions = new SessionAuthenticator(
        { passwords: PASSWORD_1 },
        { events: publisher as unknown as SecurityEvents },
      );
      expect(await sessions.authenticate(request({ cookie: '__Host-session=bad' }))).toBeNull();
      const cookie = await sessions.logIn(ALICE);
      await sessions.logOut(request({ cookie }));
      expect(await sessions.authenticate(request({ cookie }))).toBeNull();
    }
  });

  it('the login page token of a fresh visitor comes with its pre-login cookie', async () => {
    const { sessions } = makeSessions();
    const first = await sessions.csrfToken(request());
    const second = await sessions.csrfToken(request());
    expect(first.setCookie).toMatch(/^__Host-session=Fe26/u);
    // Two visitors, two sessions: their tokens differ.
    expect(first.token).not.toBe(second.token);
    expect(await sessions.verifyCsrfToken(request({ cookie: first.setCookie }), first.token)).toBe(
      true,
    );
    expect(await sessions.verifyCsrfToken(request({ cookie: first.setCookie }), second.token)).toBe(
      false,
    );
  });

  it('the options object is not kept or changed', () => {
    const options = Object.freeze({ events: new SecurityEvents() });
    expect(() => new SessionAuthenticator({ passwords: PASSWORD_1 }, options)).not.toThrow();
    expect(
      thrown(() => new SessionAuthenticator({ passwords: PASSWORD_1 }, null as never)),
    ).toMatchObject({
      option: 'options',
    });
  });
});
