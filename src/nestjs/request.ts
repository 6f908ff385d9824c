import type { ExecutionContext } from '@nestjs/common';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import type { SecurityRequest } from '../core/request.js';
import { findRequest, viewOf } from '../http/find-request.js';

/**
 * The user the pipeline found for each request, keyed by the node request (what the
 * middleware sees on either platform; Fastify's request holds it as `raw`).
 */
const users = new WeakMap<object, AuthenticatedUser | null>();

/** The node request behind a platform's request (itself on Express, `raw` on Fastify). */
function keyOf(request: object): object {
  return findRequest(request, { holders: false })?.request ?? request;
}

/**
 * The platform's request of a call (Express's `req`, Fastify's `request`): the HTTP
 * request of a controller's handler, or the `req` of a GraphQL resolver's context
 * (which `@nestjs/apollo` always sets); `undefined` for other transports.
 *
 * @internal
 */
export function platformRequestOf(context: ExecutionContext): object | undefined {
  const type = context.getType<string>();
  let request: unknown;
  if (type === 'http') request = context.switchToHttp().getRequest();
  else if (type === 'graphql') {
    const gqlContext: unknown = context.getArgByIndex(2);
    request = (gqlContext as { req?: unknown } | null | undefined)?.req;
  }
  return typeof request === 'object' && request !== null ? request : undefined;
}

/**
 * Records the user of a request (a node request or the platform's), as `request.user`
 * too (Passport's place).
 *
 * @internal
 */
export function recordUser(request: object, user: AuthenticatedUser | null): void {
  users.set(keyOf(request), user);
  exposeUser(request, user);
}

/**
 * Sets `request.user` (Fastify's request, when the middleware saw its `raw`).
 *
 * @internal
 */
export function exposeUser(request: object, user: AuthenticatedUser | null): void {
  const holder = request as { user?: unknown };
  if (holder.user !== user && Object.isExtensible(request)) holder.user = user;
}

/**
 * The user recorded for a request: `undefined` when the pipeline has not run for it
 * yet (the middleware did not see it).
 *
 * @internal
 */
export function recordedUser(request: object): AuthenticatedUser | null | undefined {
  return users.get(keyOf(request));
}

/**
 * The user recorded for the request of `context`; `null` when anonymous or when
 * the pipeline did not run for it (another library's `request.user` is not read).
 *
 * @internal
 */
export function requestUser(context: ExecutionContext): AuthenticatedUser | null {
  const request = platformRequestOf(context);
  return request === undefined ? null : (recordedUser(request) ?? null);
}

/**
 * The {@link SecurityRequest} view of a node or platform request, over TLS when the
 * platform says so (Express's and Fastify's `protocol`); `undefined` when it holds no
 * node request.
 *
 * @internal
 */
export function securityView(request: object): SecurityRequest | undefined {
  const found = findRequest(request, { holders: false });
  if (found === undefined) return undefined;
  const protocol = (request as { protocol?: unknown }).protocol;
  return typeof protocol === 'string'
    ? viewOf(found, undefined, protocol === 'https')
    : viewOf(found);
}
