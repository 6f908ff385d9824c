import { describe, expect, it, vi } from 'vitest';
import { MemoryAuthenticator } from '../../src/authentication/index.js';
import { AuthenticatedUser, authenticateWith, securityEvents, User } from '../../src/core/index.js';
import { PasswordEncodingFailedError } from '../../src/password/index.js';
import {
  basic,
  basicBytes,
  failures,
  memorySetup,
  recordEvents,
  requestWith,
  TestEncoder,
} from './helpers.js';

describe('MemoryAuthenticator with HTTP Basic', () => {
  it('authenticates a user with the right password', async () => {
    const { auth, alice, received } = memorySetup();
    const request = requestWith(basic('alice', 'wonderland'));
    expect(await auth.getUser(request)).toBe(alice);
    const user = await auth.authenticate(request);
    expect(user).toBeInstanceOf(AuthenticatedUser);
    expect(user?.username).toBe('alice');
    expect(user?.authenticationMethod).toBe('basic');
    expect(user?.hasRole('USER')).toBe(true);
    expect(user?.hasAuthority('posts:read')).toBe(true);
    expect(received[0]).toEqual({
      type: 'authentication-success',
      username: 'alice',
      authenticationMethod: 'basic',
      request: { method: 'GET', path: '/private', clientAddress: '203.0.113.7' },
    });
  });

  it('works through core authenticateWith', async () => {
    const { auth } = memorySetup();
    const user = await authenticateWith(auth, requestWith(basic('alice', 'wonderland')));
    expect(user?.authenticationMethod).toBe('basic');
  });

  it('checks an empty password like any other', async () => {
    const { auth, bob, alice } = memorySetup();
    expect(await auth.getUser(requestWith(basic('bob', '')))).toBe(bob);
    expect(await auth.getUser(requestWith(basic('alice', '')))).toBeNull();
    expect(alice.password).not.toBe('');
  });

  it('answers null without an event for no header or another scheme', async () => {
    const { auth, received } = memorySetup();
    expect(await auth.getUser(requestWith())).toBeNull();
    expect(await auth.getUser(requestWith('Bearer abc.def.ghi'))).toBeNull();
    expect(received).toEqual([]);
  });

  it('fails a wrong password with bad-credentials', async () => {
    const { auth, received } = memorySetup();
    expect(await auth.authenticate(requestWith(basic('alice', 'Wonderland')))).toBeNull();
    expect(received).toEqual([
      {
        type: 'authentication-failure',
        username: 'alice',
        authenticationMethod: 'basic',
        reason: 'bad-credentials',
        request: { method: 'GET', path: '/private', clientAddress: '203.0.113.7' },
      },
    ]);
  });

  it('fails an unknown user with unknown-user', async () => {
    const { auth, received } = memorySetup();
    expect(await auth.getUser(requestWith(basic('mallory', 'wonderland')))).toBeNull();
    expect(failures(received).map((e) => [e.username, e.reason])).toEqual([
      ['mallory', 'unknown-user'],
    ]);
  });

  it('takes the first colon as the separator', async () => {
    const encoder = new TestEncoder();
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [new User('carol', encoder.hash('a:b:c'))],
    });
    expect((await auth.getUser(requestWith(basic('carol', 'a:b:c'))))?.username).toBe('carol');
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'treats the username %s as unknown',
    async (name) => {
      const { auth, received } = memorySetup();
      expect(await auth.getUser(requestWith(basic(name, 'x')))).toBeNull();
      expect(failures(received).map((e) => e.reason)).toEqual(['unknown-user']);
    },
  );

  it('does not normalize Unicode usernames', async () => {
    const encoder = new TestEncoder();
    const nfc = 'Jos\u00e9';
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [new User(nfc, encoder.hash('pw'))],
    });
    expect((await auth.getUser(requestWith(basic(nfc, 'pw'))))?.username).toBe(nfc);
    expect(await auth.getUser(requestWith(basic(nfc.normalize('NFD'), 'pw')))).toBeNull();
  });

  it('handles a huge unknown username without throwing', async () => {
    const { auth, received } = memorySetup();
    expect(await auth.getUser(requestWith(basic('u'.repeat(6000), 'pw')))).toBeNull();
    expect(failures(received).map((e) => e.reason)).toEqual(['unknown-user']);
  });

  describe('attacks: every malformed credential is null plus an event, never a throw', () => {
    it.each([
      ['bad base64', 'Basic !!!', 'malformed-credentials'],
      ['excess padding', 'Basic YWxhZGRpbjpvcGVuc2VzYW1l=====', 'malformed-credentials'],
      ['an empty token', 'Basic ', 'malformed-credentials'],
      ['whitespace inside the token', 'Basic YWxp Y2U6d29uZGVybGFuZA==', 'malformed-credentials'],
      ['no colon', `Basic ${Buffer.from('alice').toString('base64')}`, 'malformed-credentials'],
      ['invalid UTF-8', basicBytes([0x61, 0x6c, 0xff, 0x3a, 0x78]), 'malformed-credentials'],
      ['an empty username', basic('', 'wonderland'), 'malformed-credentials'],
      ['CRLF in the username', basic('alice\r\n', 'wonderland'), 'malformed-credentials'],
      ['an oversized header', basic('alice', 'w'.repeat(9000)), 'credentials-too-large'],
    ])('%s', async (_name, header, reason) => {
      const { auth, received, encoder } = memorySetup();
      expect(await auth.authenticate(requestWith(header))).toBeNull();
      expect(received).toEqual([
        {
          type: 'authentication-failure',
          username: undefined,
          authenticationMethod: 'basic',
          reason,
          request: { method: 'GET', path: '/private', clientAddress: '203.0.113.7' },
        },
      ]);
      expect(encoder.matchesCalls).toBe(0);
    });

    it('refuses two Authorization headers, even both valid', async () => {
      const { auth, received } = memorySetup();
      const request = requestWith([basic('alice', 'wonderland'), basic('bob', '')]);
      expect(await auth.getUser(request)).toBeNull();
      expect(failures(received).map((e) => e.reason)).toEqual(['malformed-credentials']);
    });

    it('honours a configured maxHeaderLength', async () => {
      const encoder = new TestEncoder();
      const { events, received } = recordEvents();
      const auth = new MemoryAuthenticator({
        passwordEncoder: encoder,
        users: [new User('alice', encoder.hash('wonderland'))],
        maxHeaderLength: 64,
        events,
      });
      expect(await auth.getUser(requestWith(basic('alice', 'wonderland')))).not.toBeNull();
      expect(await auth.getUser(requestWith(basic('alice', 'w'.repeat(60))))).toBeNull();
      expect(failures(received).map((e) => e.reason)).toEqual(['credentials-too-large']);
    });
  });

  it('never puts the password in an event', async () => {
    const { auth, received } = memorySetup();
    const secret = 'correct-horse-battery-staple';
    await auth.getUser(requestWith(basic('alice', secret)));
    await auth.getUser(requestWith(basic('mallory', secret)));
    await auth.getUser(requestWith(basic('alice', 'wonderland')));
    await auth.getUser(requestWith(`Basic ${Buffer.from(secret).toString('base64')}`));
    expect(received).toHaveLength(4);
    const text = JSON.stringify(received);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('wonderland');
    expect(text).not.toContain(Buffer.from(secret).toString('base64'));
  });

  it('keeps authenticating when an event listener throws or rejects', async () => {
    const { auth, events, alice } = memorySetup();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      events.on('authentication-success', () => {
        throw new Error('listener bug');
      });
      events.on('authentication-failure', () => Promise.reject(new Error('async listener bug')));
      expect(await auth.getUser(requestWith(basic('alice', 'wonderland')))).toBe(alice);
      expect(await auth.getUser(requestWith(basic('alice', 'nope')))).toBeNull();
      expect(await auth.getUser(requestWith('Basic !!!'))).toBeNull();
    } finally {
      warn.mockRestore();
    }
  });

  it('keeps authenticating when a custom publisher throws', async () => {
    const encoder = new TestEncoder();
    const publisher = {
      hasListeners: true,
      publish: () => {
        throw new Error('broken publisher');
      },
      on: () => () => undefined,
    };
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [new User('alice', encoder.hash('wonderland'))],
      events: publisher as never,
    });
    expect(await auth.getUser(requestWith(basic('alice', 'wonderland')))).not.toBeNull();
    expect(await auth.getUser(requestWith(basic('alice', 'x')))).toBeNull();
  });

  it('publishes to securityEvents by default, and builds no event without listeners', async () => {
    const encoder = new TestEncoder();
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [new User('alice', encoder.hash('wonderland'))],
    });
    const publish = vi.spyOn(securityEvents, 'publish');
    try {
      await auth.getUser(requestWith(basic('alice', 'wonderland')));
      expect(publish).not.toHaveBeenCalled();
      const seen: string[] = [];
      const stop = securityEvents.on('authentication-success', (e) => {
        seen.push(e.username);
      });
      await auth.getUser(requestWith(basic('alice', 'wonderland')));
      stop();
      expect(seen).toEqual(['alice']);
    } finally {
      publish.mockRestore();
    }
  });

  it('reports an unknown stored password encoding', async () => {
    const encoder = new TestEncoder();
    encoder.matches = () =>
      Promise.reject(Object.assign(new Error('unknown id'), { code: 'ERR_PASSWORD_ENCODING' }));
    const { events, received } = recordEvents();
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [new User('alice', '{md4}abc')],
      events,
    });
    expect(await auth.getUser(requestWith(basic('alice', 'x')))).toBeNull();
    expect(failures(received).map((e) => e.reason)).toEqual(['unknown-password-encoding']);
  });

  it('reports a PasswordEncodingError of any code as an unknown stored password encoding', async () => {
    const encoder = new TestEncoder();
    encoder.matches = () =>
      Promise.reject(new PasswordEncodingFailedError('ERR_PASSWORD_MALFORMED', 'malformed'));
    const { events, received } = recordEvents();
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [new User('alice', '{md4}abc')],
      events,
    });
    expect(await auth.getUser(requestWith(basic('alice', 'x')))).toBeNull();
    expect(failures(received).map((e) => e.reason)).toEqual(['unknown-password-encoding']);
  });

  it('fails closed with reason other when the encoder throws', async () => {
    const encoder = new TestEncoder();
    encoder.matches = () => {
      throw new RangeError('boom');
    };
    const { events, received } = recordEvents();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const auth = new MemoryAuthenticator({
        passwordEncoder: encoder,
        users: [new User('alice', encoder.hash('wonderland'))],
        events,
      });
      expect(await auth.getUser(requestWith(basic('alice', 'wonderland')))).toBeNull();
      expect(failures(received).map((e) => e.reason)).toEqual(['other']);
      expect(String(warn.mock.calls[0]?.[0])).not.toContain('wonderland');
    } finally {
      warn.mockRestore();
    }
  });

  it('only takes a real true from matches as a match', async () => {
    const encoder = new TestEncoder();
    encoder.matches = () => Promise.resolve('yes' as unknown as boolean);
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [new User('alice', encoder.hash('wonderland'))],
    });
    expect(await auth.getUser(requestWith(basic('alice', 'anything')))).toBeNull();
  });
});
