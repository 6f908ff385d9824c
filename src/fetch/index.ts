/**
 * `portcullis/fetch`: the Fetch API adapter (`Request → Response` handlers, Hono).
 *
 * @packageDocumentation
 */
export { getCspNonce, getUser } from './context.js';
export { withSecurityHeaders } from './headers.js';
export {
  honoSecurity,
  honoSecurityHeaders,
  type HonoLikeContext,
  type HonoLikeMiddleware,
  type PortcullisVariables,
} from './hono.js';
export { toSecurityRequest } from './request.js';
export { secure, type FetchSecurityContext, type SecureFetchOptions } from './security.js';
