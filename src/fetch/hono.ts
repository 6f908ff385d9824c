import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { SecurityContext } from '../core/context.js';
import { SecurityHeaders, type SecurityHeadersOptions } from '../headers/index.js';
import type { SecurityTransform } from '../transform/index.js';
import { setCspNonce, setUser } from './context.js';
import { decorate } from './headers.js';
import { toFetchResponse } from '../http/response.js';
import { check, withHeaders } from './security.js';

/**
 * The part of Hono's `Context` portcullis uses (structural: portcullis does not
 * depend on Hono).
 */
export interface HonoLikeContext {
  readonly req: { readonly raw: Request };
  /**
   * The runtime's bindings: where a server puts the connection (`@hono/node-server`'s
   * `incoming`, Bun's server, Deno's connection info).
   */
  readonly env?: unknown;
  res: Response;
  set(key: 'user', value: AuthenticatedUser | null): void;
  set(key: 'cspNonce', value: string | undefined): void;
}

/** Hono's middleware shape. */
export type HonoLikeMiddleware = (
  c: HonoLikeContext,
  next: () => Promise<void>,
) => Promise<Response | undefined>;

/** The variables portcullis sets on a Hono context: `new Hono<{ Variables: PortcullisVariables }>()`. */
export interface PortcullisVariables {
  user: AuthenticatedUser | null;
  cspNonce: string | undefined;
}

/**
 * Hono middleware running a {@link SecurityTransform}: `c.get('user')` is the user
 * afterwards, and the `SecurityContext` is filled for the downstream handlers.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono';
 * import { honoSecurity, type PortcullisVariables } from 'portcullis/fetch';
 * const app = new Hono<{ Variables: PortcullisVariables }>();
 * app.use(honoSecurity(transform));
 * app.get('/profile', (c) => c.text(c.get('user')?.username ?? ''));
 * ```
 */
export function honoSecurity(transform: SecurityTransform): HonoLikeMiddleware {
  return async function portcullisHono(c, next) {
    const request = c.req.raw;
    const outcome = await check(transform, request, undefined);
    if (!outcome.proceed) return toFetchResponse(outcome.response);
    setUser(request, outcome.user);
    c.set('user', outcome.user);
    await SecurityContext.run(outcome.user, next);
    if (outcome.headers) {
      // In place when the headers are mutable: Hono's `res` setter would copy the old
      // headers over the new ones.
      const response = withHeaders(c.res, outcome.headers);
      if (response !== c.res) c.res = response;
    }
    return undefined;
  };
}

/**
 * Hono middleware setting the security headers ({@link SecurityHeaders}) on every
 * response, including portcullis' own denials when mounted first; the nonce is
 * `c.get('cspNonce')`.
 *
 * @example
 * ```ts
 * app.use(honoSecurityHeaders({ contentSecurityPolicy: { directives: { scriptSrc: ["'self'", SecurityHeaders.nonce] } } }));
 * ```
 */
export function honoSecurityHeaders(
  options: SecurityHeaders | SecurityHeadersOptions = {},
): HonoLikeMiddleware {
  const headers = options instanceof SecurityHeaders ? options : new SecurityHeaders(options);
  return async function portcullisHonoHeaders(c, next) {
    const request = c.req.raw;
    const applied = headers.forRequest();
    if (applied.nonce !== undefined) {
      setCspNonce(request, applied.nonce);
      c.set('cspNonce', applied.nonce);
    }
    await next();
    c.res = decorate(headers, applied, request, c.res);
    return undefined;
  };
}
