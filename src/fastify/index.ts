/**
 * `portcullis/fastify`: the Fastify plugins.
 *
 * @packageDocumentation
 */
export { securityHeaders, type SecurityHeadersPluginOptions } from './headers.js';
export { security, type SecurityPluginOptions } from './plugin.js';
export { securityRoutes, type SecurityRoutesPluginOptions } from './routes.js';
