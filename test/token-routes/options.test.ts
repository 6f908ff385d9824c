import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { securityRoutes } from '../../src/fastify/index.js';
import { tokenEndpoints, type TokenEndpointsOptions } from '../../src/jwt/index.js';
import { makeFixture } from './support.js';

const fixture = makeFixture();
const valid: TokenEndpointsOptions = {
  authenticator: fixture.store,
  tokens: fixture.tokens,
  users: fixture.repository,
};

function optionOf(options: unknown): string | undefined {
  try {
    tokenEndpoints(options as TokenEndpointsOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).option;
  }
  return undefined;
}

describe('tokenEndpoints options', () => {
  it('has the documented defaults and freezes what it returns', () => {
    const endpoints = tokenEndpoints(valid);
    expect(endpoints.loginPath).toBe('/auth/login');
    expect(endpoints.refreshPath).toBe('/auth/refresh');
    expect(endpoints.paths).toEqual(['/auth/login', '/auth/refresh']);
    expect(Object.isFrozen(endpoints)).toBe(true);
    expect(Object.isFrozen(endpoints.paths)).toBe(true);
  });

  it('takes a UserRepository or { loadUser }, and never mutates the options', () => {
    const options = Object.freeze({ ...valid, users: { loadUser: () => null } });
    expect(() => tokenEndpoints(options)).not.toThrow();
    expect(optionOf({ ...valid, users: () => null })).toBe('users');
    expect(optionOf({ ...valid, users: {} })).toBe('users');
  });

  it.each([
    ['options', null],
    ['authenticator', { ...valid, authenticator: { verifyCredentials: () => null } }],
    ['tokens', { ...valid, tokens: {} }],
    ['loginPath', { ...valid, loginPath: 'auth/login' }],
    ['loginPath', { ...valid, loginPath: '//evil.example/login' }],
    ['loginPath', { ...valid, loginPath: '/auth/login?x=1' }],
    ['loginPath', { ...valid, loginPath: '/auth/../login' }],
    ['refreshPath', { ...valid, refreshPath: '/auth/login' }],
    ['maxBodyBytes', { ...valid, maxBodyBytes: 100 }],
    ['maxBodyBytes', { ...valid, maxBodyBytes: 2_000_000 }],
    ['timeoutMs', { ...valid, timeoutMs: 0 }],
    ['formBodies', { ...valid, formBodies: 'yes' }],
    ['events', { ...valid, events: {} }],
    ['loginUrl', { ...valid, loginUrl: '/login' }], // an unknown option
  ])('refuses a bad %s at start-up', (option, options) => {
    expect(optionOf(options)).toBe(option);
  });

  it.each([
    ['no routes', {}],
    ['routes that are no array', { routes: {} }],
    ['an item that is no SecurityRoutes', { routes: [{ paths: ['/x'] }] }],
    [
      'a path Fastify cannot route',
      { routes: [{ paths: ['/files/**'], handle: () => undefined }] },
    ],
  ])('Fastify: refuses a plugin registration with %s', async (_name, options) => {
    const app = Fastify();
    await expect(app.register(securityRoutes, options as never).ready()).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option: 'routes',
    });
    await app.close();
  });
});
