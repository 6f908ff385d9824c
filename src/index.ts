/**
 * portcullis: authentication and authorization for TypeScript servers.
 *
 * The core entry holds the model (users, requests, context, events, errors), the
 * password encoders on `node:crypto`, authentication (in-memory store, HTTP Basic),
 * authorization (access rules, URL matcher, firewall), the `SecurityTransform`
 * pipeline and `SecurityHeaders`. It loads no native module and no peer dependency:
 * Argon2 comes from `portcullis/argon2`, the adapters from `portcullis/node`,
 * `portcullis/fetch` and `portcullis/fastify`.
 *
 * @packageDocumentation
 */
export * from './core/index.js';
export * from './expression/index.js';
export * from './password/index.js';
export * from './authentication/index.js';
export * from './authorization/index.js';
export * from './headers/index.js';
export * from './cors/index.js';
export * from './transform/index.js';
export * from './stores/index.js';
export * from './users/index.js';
export * from './throttle/index.js';
export type { CliConfig, CliUser } from './cli/config.js';
