import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { AuthenticationManager } from '../../src/authentication/index.js';
import {
  AuthenticatedUser,
  authenticateWith,
  User,
  type Authenticator,
  type SecurityRequest,
} from '../../src/core/index.js';
import { basic, recordEvents, requestWith, TestEncoder } from './helpers.js';

const apiKeyUser = new User('robot', '', ['SERVICE']);
const apiKeys: Authenticator = {
  authenticationMethod: 'api-key',
  getUser: (request: SecurityRequest) =>
    request.header('x-api-key') === 'k-123' ? apiKeyUser : null,
};

function basicAuth() {
  const encoder = new TestEncoder();
  return AuthenticationManager.inMemoryAuthentication()
    .passwordEncoder(encoder)
    .withUser(new User('alice', encoder.hash('wonderland'), ['USER']));
}

let warn: MockInstance<typeof process.emitWarning>;
beforeEach(() => {
  warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
});
afterEach(() => {
  warn.mockRestore();
});

describe('AuthenticationManager.anyOf', () => {
  it('requires at least one authenticator', () => {
    expect(() => AuthenticationManager.anyOf()).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'authenticators' }),
    );
    expect(() => AuthenticationManager.anyOf([])).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION' }),
    );
  });

  it('refuses things that are not authenticators', () => {
    expect(() => AuthenticationManager.anyOf({} as Authenticator)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'authenticators' }),
    );
    expect(() => AuthenticationManager.anyOf(null as unknown as Authenticator)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION' }),
    );
  });

  it('takes the first user found, each with its own method', async () => {
    const any = AuthenticationManager.anyOf(apiKeys, basicAuth());
    const byKey = await authenticateWith(any, requestWith(undefined, { 'x-api-key': 'k-123' }));
    expect(byKey?.username).toBe('robot');
    expect(byKey?.authenticationMethod).toBe('api-key');
    const byBasic = await authenticateWith(any, requestWith(basic('alice', 'wonderland')));
    expect(byBasic).toBeInstanceOf(AuthenticatedUser);
    expect(byBasic?.username).toBe('alice');
    expect(byBasic?.authenticationMethod).toBe('basic');
    expect(await authenticateWith(any, requestWith(basic('alice', 'nope')))).toBeNull();
  });

  it('asks in order and stops at the first user', async () => {
    const calls: string[] = [];
    const make = (name: string, user: User | null): Authenticator => ({
      authenticationMethod: name,
      getUser: () => {
        calls.push(name);
        return Promise.resolve(user);
      },
    });
    const any = AuthenticationManager.anyOf([
      make('a', null),
      make('b', apiKeyUser),
      make('c', apiKeyUser),
    ]);
    expect((await any.authenticate?.(requestWith()))?.authenticationMethod).toBe('b');
    expect(calls).toEqual(['a', 'b']);
  });

  it('gives a User from getUser', async () => {
    const any = AuthenticationManager.anyOf(apiKeys, basicAuth());
    const user = await any.getUser(requestWith(basic('alice', 'wonderland')));
    expect(user).toBeInstanceOf(User);
    expect(user?.username).toBe('alice');
    expect(await any.getUser(requestWith())).toBeNull();
  });

  it('prefers an authenticator’s authenticate over getUser', async () => {
    const rich: Authenticator = {
      getUser: () => null,
      authenticate: () =>
        AuthenticatedUser.from(apiKeyUser, {
          authenticationMethod: 'jwt',
          attributes: { scope: 'read' },
        }),
    };
    const user = await authenticateWith(AuthenticationManager.anyOf(rich), requestWith());
    expect(user?.attributes.scope).toBe('read');
    expect(user?.authenticationMethod).toBe('jwt');
  });

  it.each([
    [
      'throws',
      (): never => {
        throw new Error('token=secret-value');
      },
    ],
    ['rejects', () => Promise.reject(new Error('token=secret-value'))],
  ])(
    'treats an authenticator that %s as no user, publishes reason other and goes on',
    async (_n, fail) => {
      const { events, received } = recordEvents();
      const broken: Authenticator = { authenticationMethod: 'jwt', getUser: fail };
      const any = AuthenticationManager.anyOf([broken, basicAuth()], { events });
      const user = await authenticateWith(any, requestWith(basic('alice', 'wonderland')));
      expect(user?.username).toBe('alice');
      expect(received).toEqual([
        {
          type: 'authentication-failure',
          username: undefined,
          authenticationMethod: 'jwt',
          reason: 'other',
          request: { method: 'GET', path: '/private', clientAddress: '203.0.113.7' },
        },
      ]);
      expect(await any.getUser(requestWith())).toBeNull();
      expect(warn).toHaveBeenCalledTimes(1); // once per authenticator
      expect(String(warn.mock.calls[0]?.[0])).not.toContain('secret-value');
    },
  );

  it('answers null when every authenticator fails', async () => {
    const broken: Authenticator = {
      getUser: () => {
        throw new TypeError('x');
      },
    };
    const any = AuthenticationManager.anyOf(broken, broken);
    expect(await authenticateWith(any, requestWith())).toBeNull();
  });

  it('copies its list: later changes to the array do not matter', async () => {
    const list: Authenticator[] = [apiKeys];
    const any = AuthenticationManager.anyOf(list);
    list.length = 0;
    expect((await any.getUser(requestWith(undefined, { 'x-api-key': 'k-123' })))?.username).toBe(
      'robot',
    );
  });
});
