import type { AuthenticatedUser } from '../core/authenticated-user.js';
import type { Authenticator } from '../core/security.js';

/**
 * An authenticator that answers this user (or anonymous) for every request: what the
 * context factories (`createTrpcContext`, `createGraphQLContext`) run in the kit, so a
 * test's context is the one they build in production, with the user chosen by the test.
 *
 * @internal
 */
export function fixedUser(user: AuthenticatedUser | null): Authenticator {
  return {
    authenticationMethod: user?.authenticationMethod ?? 'mock',
    getUser: () => null,
    authenticate: () => user,
  };
}

/** The request a context is made from when the test gives none. @internal */
export function testRequest(path: string): Request {
  return new Request(`http://localhost${path}`, { method: 'POST' });
}
