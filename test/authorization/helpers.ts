import {
  AuthenticatedUser,
  User,
  createSecurityRequest,
  type SecurityRequest,
} from '../../src/core/index.js';

/** A real SecurityRequest, as an adapter builds it. */
export function request(
  url: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): SecurityRequest {
  const headers = new Map(
    Object.entries(options.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  return createSecurityRequest({
    method: options.method ?? 'GET',
    url,
    header: (name) => headers.get(name),
    clientAddress: '127.0.0.1',
  });
}

/** An authenticated user with these roles and authorities. */
export function user(roles: string[] = [], authorities: string[] = []): AuthenticatedUser {
  return AuthenticatedUser.from(
    User.withEncodedPassword('alice', '{noop}unused').withRoles(roles).withAuthorities(authorities),
    { authenticationMethod: 'basic' },
  );
}

/** Runs `fn` and returns what it threw (fails the test when it does not throw). */
export function thrown(fn: () => unknown): { code?: string; option?: string; message: string } {
  try {
    fn();
  } catch (error) {
    return error as { code?: string; option?: string; message: string };
  }
  throw new Error('expected an error');
}
