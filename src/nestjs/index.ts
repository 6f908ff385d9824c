/**
 * `portcullis/nestjs`: the SPEC's security macros as NestJS decorators, and the
 * module whose global guard runs the pipeline on Express and on Fastify.
 *
 * @packageDocumentation
 */
export {
  Authenticated,
  CurrentUser,
  DenyAll,
  PermitAll,
  PreAuthorize,
  RolesAllowed,
  Secured,
  currentUser,
  type SecurityDecorator,
} from './decorators.js';
export { PortcullisModule, type PortcullisModuleAsyncOptions } from './module.js';
export { type PortcullisModuleOptions } from './options.js';
export type { RightsRequirement } from '../authorization/method-rule.js';
