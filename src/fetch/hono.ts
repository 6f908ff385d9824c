import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { SecurityContext } from '../core/context.js';
import type { SecurityTransform } from '../transform/index.js';
import { check, toResponse } from './security.js';

/**
 * The part of Hono's `Context` portcullis uses (structural: portcullis does not
 * depend on Hono).
 */
export interface HonoLikeContext {
  readonly req: { readonly raw: Request };
  set(key: 'user', value: AuthenticatedUser | null): void;
}

/** Hono's middleware shape. */
export type HonoLikeMiddleware = (
  c: HonoLikeContext,
  next: () => Promise<void>,
) => Promise<Response | undefined>;

/**
 * Hono middleware running a {@link SecurityTransform}: `c.get('user')` is the user
 * afterwards, and the `SecurityContext` is filled for the downstream handlers.
 * Type the variable with `new Hono<{ Variables: { user: AuthenticatedUser | null } }>()`.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono';
 * import { honoSecurity } from 'portcullis/fetch';
 * const app = new Hono<{ Variables: { user: AuthenticatedUser | null } }>();
 * app.use(honoSecurity(transform));
 * app.get('/profile', (c) => c.text(c.get('user')?.username ?? ''));
 * ```
 */
export function honoSecurity(transform: SecurityTransform): HonoLikeMiddleware {
  return async function portcullisHono(c, next) {
    const outcome = await check(transform, c.req.raw, undefined);
    if (!outcome.proceed) return toResponse(outcome.response);
    c.set('user', outcome.user);
    await SecurityContext.run(outcome.user, next);
    return undefined;
  };
}
