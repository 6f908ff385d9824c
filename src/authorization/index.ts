/**
 * Authorization: what a URL rule requires ({@link Access}), the URL-rule authorizer
 * ({@link RequestMatcherAuthorizer}: Spring path patterns and regex rules, deny by
 * default), the request firewall ({@link Firewall}) and the
 * entry points that answer denials (401 / login redirect / 403 / 400).
 *
 * @module portcullis
 */
export { Access, type AccessCheck, type AccessExplanation, type AccessOutcome } from './access.js';
export { AuthorizationManager } from './authorization-manager.js';
export {
  errorResponse,
  isBrowserNavigation,
  loginRedirect,
  type ErrorResponseOptions,
  type ProblemDetailsMode,
} from './entry-points.js';
export { Firewall, type FirewallRejectionReason } from './firewall.js';
export { type FirewallOptions } from './firewall-options.js';
export {
  RequestMatcherAuthorizer,
  type MatcherOptions,
  type RequestMatcherOptions,
} from './request-matcher.js';
export type { RequestMatcherRateLimitOptions, RequestMatcherRuleOptions } from './rule-options.js';
