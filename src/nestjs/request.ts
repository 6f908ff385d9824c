import type { ExecutionContext } from '@nestjs/common';
import type { AuthenticatedUser } from '../core/authenticated-user.js';

/** The user the guard found for each request (the platform's request object). */
const users = new WeakMap<object, AuthenticatedUser | null>();

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

/** Records the user of a request, as `request.user` too (Passport's place). @internal */
export function recordUser(request: object, user: AuthenticatedUser | null): void {
  users.set(request, user);
  if (Object.isExtensible(request)) (request as { user?: unknown }).user = user;
}

/** The user recorded for a request: `undefined` when the guard has not run for it yet. @internal */
export function recordedUser(request: object): AuthenticatedUser | null | undefined {
  return users.get(request);
}

/**
 * The user the guard recorded for the request of `context`; `null` when anonymous or
 * when the guard did not run for it (another library's `request.user` is not read).
 *
 * @internal
 */
export function requestUser(context: ExecutionContext): AuthenticatedUser | null {
  const request = platformRequestOf(context);
  return request === undefined ? null : (users.get(request) ?? null);
}
