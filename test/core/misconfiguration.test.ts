import { describe, expect, it } from 'vitest';
import {
  AuthenticationManager,
  type MemoryAuthenticator,
  SecurityTransform,
  User,
  type Authenticator,
} from '../../src/index.js';
import { JwtConfig } from '../../src/jwt/index.js';
import { createTrpcContext as trpcContext } from '../../src/trpc/index.js';
import { createGraphQLContext as graphqlContext } from '../../src/graphql/index.js';

const missingEncoder = { code: 'ERR_INVALID_OPTION', option: 'passwordEncoder' };

/** An in-memory store whose password encoder was forgotten. */
const storeWithoutEncoder = (): MemoryAuthenticator =>
  AuthenticationManager.inMemoryAuthentication().withUser(new User('alice', '{noop}x'));

describe('misconfiguration is found at start-up, not at the first request', () => {
  it('a memory store without a password encoder fails configAuthenticator', () => {
    expect(() => new SecurityTransform().configAuthenticator(storeWithoutEncoder)).toThrow(
      expect.objectContaining(missingEncoder),
    );
  });

  it('... and the options form of SecurityTransform', () => {
    expect(() => new SecurityTransform({ authenticator: storeWithoutEncoder() })).toThrow(
      expect.objectContaining(missingEncoder),
    );
  });

  it('... also when it hides inside anyOf', () => {
    const hidden: Authenticator = AuthenticationManager.anyOf(
      { getUser: () => null },
      storeWithoutEncoder(),
    );
    expect(() => new SecurityTransform({ authenticator: hidden })).toThrow(
      expect.objectContaining(missingEncoder),
    );
  });

  it('... and the tRPC and GraphQL context factories', () => {
    expect(() => trpcContext({ authenticator: storeWithoutEncoder() })).toThrow(
      expect.objectContaining(missingEncoder),
    );
    expect(() => graphqlContext({ authenticator: storeWithoutEncoder() })).toThrow(
      expect.objectContaining(missingEncoder),
    );
  });
});

describe('a missing JWT secret says it is missing', () => {
  it.each([
    ['undefined (an unset environment variable)', undefined],
    ['null', null],
  ])('%s', (_name, value) => {
    let error: unknown;
    try {
      new JwtConfig(value as unknown as string);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'ERR_INVALID_OPTION', option: 'secret' });
    expect((error as Error).message).toMatch(/is missing/u);
    expect((error as Error).message).not.toMatch(/PEM/u);
  });

  it('an empty or blank string', () => {
    for (const value of ['', '   ']) {
      let error: unknown;
      try {
        new JwtConfig(value);
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({ code: 'ERR_INVALID_OPTION', option: 'secret' });
      expect((error as Error).message).toMatch(/is empty/u);
    }
  });
});
