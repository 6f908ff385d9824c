/**
 * CORS, applied by the `SecurityTransform` before authentication (from the core
 * `portcullis` entry).
 *
 * @module portcullis
 */
export { CorsConfiguration, isPreflightRequest } from './cors-configuration.js';
export type { CorsOptions } from './cors-options.js';
