import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { SecurityContext } from '../core/context.js';
import { editHeaders, toFetchResponse } from '../http/response.js';
import { mergeVary } from '../lib/vary.js';
import type { SecurityOutcome, SecurityTransform } from '../transform/index.js';
import { setUser } from './context.js';
import { toSecurityRequest } from './request.js';

/** What a secured Fetch handler receives besides the request. */
export interface FetchUserContext {
  /** The authenticated user, or `null` for an anonymous request to a public route. */
  readonly user: AuthenticatedUser | null;
}

/** Options of {@link withSecurity}. */
export interface WithSecurityOptions<Args extends unknown[]> {
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
 * import { withSecurity } from 'portcullis/fetch';
 * export default {
 *   fetch: withSecurity(transform, (request, { user }) =>
 *     new Response(`hello ${user?.username ?? 'anonymous'}`)),
 * };
 * ```
 */
export function withSecurity<Args extends unknown[]>(
  transform: SecurityTransform,
  handler: (
    request: Request,
    context: FetchUserContext,
    ...args: Args
  ) => Response | Promise<Response>,
  options: WithSecurityOptions<Args> = {},
): (request: Request, ...args: Args) => Promise<Response> {
  const clientAddress = options.clientAddress;
  return async function portcullisFetch(request, ...args) {
    const outcome = await check(transform, request, clientAddress?.(request, ...args));
    if (!outcome.proceed) return toFetchResponse(outcome.response);
    const user = outcome.user;
    setUser(request, user);
    const response = await SecurityContext.run(user, () => handler(request, { user }, ...args));
    return outcome.headers ? withHeaders(response, outcome.headers) : response;
  };
}

/**
 * The handler's response with the outcome's headers (CORS) added where the handler
 * set none; `Vary` is merged. A response with immutable headers is copied.
 *
 * @internal
 */
export function withHeaders(
  response: Response,
  headers: Readonly<Record<string, string>>,
): Response {
  return editHeaders(response, (target) => {
    apply(target, headers);
  });
}

function apply(target: Headers, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'vary') target.set('vary', mergeVary(target.get('vary') ?? undefined, value));
    else if (!target.has(name)) target.set(name, value);
  }
}

/** Runs the transform for a Fetch request. @internal */
export function check(
  transform: SecurityTransform,
  request: Request,
  clientAddress: string | undefined,
): SecurityOutcome | Promise<SecurityOutcome> {
  return transform.handle(toSecurityRequest(request, clientAddress));
}
