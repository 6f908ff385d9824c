/**
 * `portcullis/fetch`: the Fetch API adapter (`Request → Response` handlers, Hono).
 *
 * @packageDocumentation
 */
export { honoSecurity, type HonoLikeContext, type HonoLikeMiddleware } from './hono.js';
export { toSecurityRequest } from './request.js';
export { secure, type FetchSecurityContext, type SecureFetchOptions } from './security.js';
