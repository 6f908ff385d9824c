import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { MemoryAuthenticator } from '../../src/authentication/index.js';
import { User } from '../../src/core/index.js';
import {
  DelegatingPasswordEncoder,
  NoOpPasswordEncoder,
  ScryptPasswordEncoder,
} from '../../src/password/index.js';
import { basic, recordEvents, requestWith } from './helpers.js';

// Integration with the real encoders of src/password (weak scrypt parameters for speed).

function delegating(defaultId?: 'scrypt' | 'noop') {
  const encoder = new DelegatingPasswordEncoder({
    encoders: {
      noop: new NoOpPasswordEncoder(),
      scrypt: new ScryptPasswordEncoder({ cost: 1024, dangerouslyAllowWeakParameters: true }),
    },
    ...(defaultId === undefined ? {} : { defaultId }),
  });
  return encoder;
}

let warn: MockInstance<typeof process.emitWarning>;
beforeEach(() => {
  warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
});
afterEach(() => {
  warn.mockRestore();
});

describe('MemoryAuthenticator with DelegatingPasswordEncoder', () => {
  it('authenticates {noop} and {scrypt} users and upgrades {noop} to {scrypt}', async () => {
    const encoder = delegating('scrypt');
    const persisted = new Map<string, string>();
    const { events, received } = recordEvents();
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [
        User.withEncodedPassword('alice', '{noop}wonderland').withRoles(['USER']),
        User.withEncodedPassword('bob', await encoder.encode('builder')).withRoles(['ADMIN']),
      ],
      events,
      onPasswordUpgrade: (username, encoded) => {
        persisted.set(username, encoded);
      },
    });

    const alice = await auth.authenticate(requestWith(basic('alice', 'wonderland')));
    expect(alice?.hasRole('USER')).toBe(true);
    const upgraded = auth.findUser('alice')?.password ?? '';
    expect(upgraded).toMatch(/^\{scrypt\}\$scrypt\$/u);
    expect(persisted.get('alice')).toBe(upgraded);
    expect(await encoder.matches('wonderland', upgraded)).toBe(true);
    expect(await auth.getUser(requestWith(basic('alice', 'wonderland')))).not.toBeNull();

    expect((await auth.authenticate(requestWith(basic('bob', 'builder'))))?.hasRole('ADMIN')).toBe(
      true,
    );
    expect(persisted.has('bob')).toBe(false);
    expect(await auth.getUser(requestWith(basic('bob', 'Builder')))).toBeNull();
    expect(await auth.getUser(requestWith(basic('carol', 'builder')))).toBeNull();

    const outcomes = received.map((e) =>
      e.type === 'authentication-failure' ? `${e.username ?? ''}:${e.reason}` : e.type,
    );
    expect(outcomes).toEqual([
      'authentication-success',
      'authentication-success',
      'authentication-success',
      'bob:bad-credentials',
      'carol:unknown-user',
    ]);
    expect(JSON.stringify(received)).not.toMatch(/wonderland|builder/u);
  });

  it('checks unknown users against a {scrypt} dummy hash', async () => {
    const encoder = delegating('scrypt');
    const matches = vi.spyOn(encoder, 'matches');
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [User.withEncodedPassword('alice', await encoder.encode('wonderland'))],
    });
    expect(await auth.getUser(requestWith(basic('mallory', 'wonderland')))).toBeNull();
    expect(matches).toHaveBeenCalledTimes(1);
    expect(matches.mock.calls[0]?.[1]).toMatch(/^\{scrypt\}\$scrypt\$/u);
  });

  it('still checks unknown users when the encoder cannot encode (no default id)', async () => {
    const encoder = delegating();
    const matches = vi.spyOn(encoder, 'matches');
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [User.withEncodedPassword('alice', '{noop}wonderland')],
    });
    expect(await auth.getUser(requestWith(basic('mallory', 'wonderland')))).toBeNull();
    expect(matches).toHaveBeenCalledTimes(1);
    expect(await auth.getUser(requestWith(basic('alice', 'wonderland')))).not.toBeNull();
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('never matches a hash with an unknown {id}', async () => {
    const encoder = delegating('scrypt');
    const auth = new MemoryAuthenticator({
      passwordEncoder: encoder,
      users: [
        User.withEncodedPassword('alice', '{md5}wonderland'),
        User.withEncodedPassword('bob', 'builder'),
      ],
    });
    expect(await auth.getUser(requestWith(basic('alice', 'wonderland')))).toBeNull();
    expect(await auth.getUser(requestWith(basic('alice', '{md5}wonderland')))).toBeNull();
    expect(await auth.getUser(requestWith(basic('bob', 'builder')))).toBeNull();
  });
});
