/**
 * Security response headers: helmet 8's set by default, each header typed and
 * validated, a CSP builder with a per-request nonce, and `Cache-Control: no-store`
 * for authenticated responses. Framework-neutral; computed once at construction.
 *
 * @module portcullis
 */
export {
  applySecurityHeaders,
  applyToHeaders,
  type ApplyToHeadersOptions,
  type HeadersLike,
  type HeaderTarget,
} from './apply.js';
export type {
  CamelCaseDirective,
  ContentSecurityPolicyOptions,
  CspDirectives,
  CspDirectiveSetting,
  CspDirectiveValue,
  CspDisableDefaultSrc,
  CspNonce,
  CspSource,
  KnownCspDirective,
} from './csp-options.js';
export type {
  CrossOriginEmbedderPolicyOptions,
  CrossOriginOpenerPolicyOptions,
  CrossOriginResourcePolicyOptions,
  ReferrerPolicyOptions,
  ReferrerPolicyToken,
  SecurityHeadersOptions,
  StrictTransportSecurityOptions,
  XDnsPrefetchControlOptions,
  XFrameOptionsOptions,
  XPermittedCrossDomainPoliciesOptions,
} from './options.js';
export {
  SecurityHeaders,
  type HeaderEntry,
  type SecurityHeadersForRequest,
} from './security-headers.js';
