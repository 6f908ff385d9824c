/**
 * `portcullis/fetch`: the Fetch API adapter (`Request → Response` handlers, Hono).
 *
 * @packageDocumentation
 */
export { getCspNonce, userOf } from './context.js';
export { withSecurityHeaders } from './headers.js';
export {
  honoSecurity,
  honoSecurityHeaders,
  type HonoLikeContext,
  type HonoLikeMiddleware,
  type PortcullisVariables,
} from './hono.js';
export { toSecurityRequest } from './request.js';
export { honoSecurityRoutes, securityRoutes } from './routes.js';
export { withSecurity, type FetchUserContext, type WithSecurityOptions } from './security.js';
