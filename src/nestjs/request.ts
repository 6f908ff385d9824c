import type { ExecutionContext } from '@nestjs/common';
import type { AuthenticatedUser } from '../core/authenticated-user.js';

/** The user the guard found for each request (the platform's request object). */
const users = new WeakMap<object, AuthenticatedUser | null>();

/** The platform's request of an HTTP context (Express's `req`, Fastify's `request`). @internal */
export function httpRequestOf(context: ExecutionContext): object | undefined {
  if (context.getType() !== 'http') return undefined;
  const request: unknown = context.switchToHttp().getRequest();
  return typeof request === 'object' && request !== null ? request : undefined;
}

/** Records the user of a request, as `request.user` too (Passport's place). @internal */
export function recordUser(request: object, user: AuthenticatedUser | null): void {
  users.set(request, user);
  if (Object.isExtensible(request)) (request as { user?: unknown }).user = user;
}

/**
 * The user the guard recorded for the request of `context`; `null` when anonymous or
 * when the guard did not run for it (another library's `request.user` is not read).
 *
 * @internal
 */
export function requestUser(context: ExecutionContext): AuthenticatedUser | null {
  const request = httpRequestOf(context);
  return request === undefined ? null : (users.get(request) ?? null);
}
