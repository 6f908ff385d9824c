import type { AuthenticatedUser } from '../core/authenticated-user.js';
import type { Authenticator } from '../core/security.js';
import type { NodeRequestLike } from '../http/request-views.js';

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

/** A request the kit's context is made from: a Fetch `Request` or a node request. */
export type TestRequest = Request | NodeRequestLike;

/**
 * The request a context is made from when the test gives none: what a server hands
 * its context factory, a POST from the loopback address (so per-address rate limits
 * count it, as behind a server; tRPC's own `createCaller` has no address).
 *
 * @internal
 */
export function testRequest(path: string): NodeRequestLike {
  // Only what the request views read: the method, URL, headers and the peer address.
  const socket = { remoteAddress: '127.0.0.1' } as unknown as NodeRequestLike['socket'];
  return { method: 'POST', url: path, headers: { host: 'localhost' }, socket };
}
