/**
 * `portcullis/node`: the node `http` adapter (Connect/Express middleware and a
 * wrapper for plain request handlers).
 *
 * @packageDocumentation
 */
export { userOf, type SecuredRequest } from './context.js';
export { toSecurityRequest } from './request.js';
export { withSecurity, security, type ConnectMiddleware } from './security.js';
export { securityRoutes } from './routes.js';
export { getCspNonce, securityHeaders, withSecurityHeaders } from './headers.js';
