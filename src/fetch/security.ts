import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { SecurityContext } from '../core/context.js';
import type { SecurityResponse } from '../core/security.js';
import type { SecurityOutcome, SecurityTransform } from '../transform/index.js';
import { setUser } from './context.js';
import { toSecurityRequest } from './request.js';

/** What a secured Fetch handler receives besides the request. */
export interface FetchSecurityContext {
  /** The authenticated user, or `null` for an anonymous request to a public route. */
  readonly user: AuthenticatedUser | null;
}

/** Options of {@link secure}. */
export interface SecureFetchOptions<Args extends unknown[]> {
  /**
   * Finds the client's address from the handler's extra arguments (Bun's server,
   * Deno's connection info), for events and rules.
   * @defaultValue unknown
   */
  readonly clientAddress?: (request: Request, ...args: Args) => string | undefined;
}

/**
 * Wraps a Fetch API handler (`Request → Response`: Next.js route handlers, Bun,
 * Deno, Cloudflare Workers, graphql-yoga, tRPC's fetch adapter) with a
 * {@link SecurityTransform}. Denials are answered without calling the handler;
 * otherwise the handler runs with the user in its second argument and in the
 * `SecurityContext`.
 *
 * @example
 * ```ts
 * import { secure } from 'portcullis/fetch';
 * export default {
 *   fetch: secure(transform, (request, { user }) =>
 *     new Response(`hello ${user?.username ?? 'anonymous'}`)),
 * };
 * ```
 */
export function secure<Args extends unknown[]>(
  transform: SecurityTransform,
  handler: (
    request: Request,
    context: FetchSecurityContext,
    ...args: Args
  ) => Response | Promise<Response>,
  options: SecureFetchOptions<Args> = {},
): (request: Request, ...args: Args) => Promise<Response> {
  const clientAddress = options.clientAddress;
  return async function portcullisFetch(request, ...args) {
    const outcome = await check(transform, request, clientAddress?.(request, ...args));
    if (!outcome.proceed) return toResponse(outcome.response);
    const user = outcome.user;
    setUser(request, user);
    return SecurityContext.run(user, () => handler(request, { user }, ...args));
  };
}

/** Runs the transform for a Fetch request. @internal */
export function check(
  transform: SecurityTransform,
  request: Request,
  clientAddress: string | undefined,
): SecurityOutcome | Promise<SecurityOutcome> {
  return transform.handle(toSecurityRequest(request, clientAddress));
}

/** A portcullis response as a Fetch `Response`. @internal */
export function toResponse(response: SecurityResponse): Response {
  return new Response(response.body, { status: response.status, headers: response.headers });
}
