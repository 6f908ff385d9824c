/**
 * `portcullis/fastify`: the Fastify plugins.
 *
 * @packageDocumentation
 */
export { portcullisHeaders, type PortcullisHeadersOptions } from './headers.js';
export { portcullis, type PortcullisFastifyOptions } from './plugin.js';
export {
  portcullisTokenEndpoints,
  type PortcullisTokenEndpointsOptions,
} from './token-endpoints.js';
