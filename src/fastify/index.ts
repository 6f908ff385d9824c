/**
 * `portcullis/fastify`: the Fastify plugin.
 *
 * @packageDocumentation
 */
export { portcullis, type PortcullisFastifyOptions } from './plugin.js';
