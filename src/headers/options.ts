import type { ContentSecurityPolicyOptions } from './csp-options.js';

/**
 * Options of {@link SecurityHeaders}, in helmet 8's names and shapes. Every header
 * takes `true` (its defaults), `false` (not sent) or its options object.
 *
 * @example
 * ```ts
 * new SecurityHeaders({
 *   strictTransportSecurity: { maxAge: 63072000, includeSubDomains: true, preload: true },
 *   xFrameOptions: { action: 'deny' },
 *   crossOriginEmbedderPolicy: true,
 *   additionalHeaders: { 'permissions-policy': 'camera=(), microphone=()' },
 * });
 * ```
 */
export interface SecurityHeadersOptions {
  /** `Content-Security-Policy`. @defaultValue helmet's policy (see {@link ContentSecurityPolicyOptions.useDefaults}) */
  readonly contentSecurityPolicy?: boolean | ContentSecurityPolicyOptions;
  /** `Cross-Origin-Embedder-Policy`; `true` sends `require-corp`. @defaultValue `false` (as helmet 8) */
  readonly crossOriginEmbedderPolicy?: boolean | CrossOriginEmbedderPolicyOptions;
  /** `Cross-Origin-Opener-Policy`. @defaultValue `same-origin` */
  readonly crossOriginOpenerPolicy?: boolean | CrossOriginOpenerPolicyOptions;
  /** `Cross-Origin-Resource-Policy`. @defaultValue `same-origin` */
  readonly crossOriginResourcePolicy?: boolean | CrossOriginResourcePolicyOptions;
  /** `Origin-Agent-Cluster: ?1`; takes no options. @defaultValue `true` */
  readonly originAgentCluster?: boolean;
  /** `Referrer-Policy`. @defaultValue `no-referrer` */
  readonly referrerPolicy?: boolean | ReferrerPolicyOptions;
  /** `Strict-Transport-Security`. @defaultValue `max-age=31536000; includeSubDomains` */
  readonly strictTransportSecurity?: boolean | StrictTransportSecurityOptions;
  /** `X-Content-Type-Options: nosniff`; takes no options. @defaultValue `true` */
  readonly xContentTypeOptions?: boolean;
  /** `X-DNS-Prefetch-Control`. @defaultValue `off` */
  readonly xDnsPrefetchControl?: boolean | XDnsPrefetchControlOptions;
  /** `X-Download-Options: noopen`; takes no options. @defaultValue `true` */
  readonly xDownloadOptions?: boolean;
  /** `X-Frame-Options`. @defaultValue `SAMEORIGIN` */
  readonly xFrameOptions?: boolean | XFrameOptionsOptions;
  /** `X-Permitted-Cross-Domain-Policies`. @defaultValue `none` */
  readonly xPermittedCrossDomainPolicies?: boolean | XPermittedCrossDomainPoliciesOptions;
  /** Remove `X-Powered-By` (`true`) or leave it alone (`false`). @defaultValue `true` */
  readonly xPoweredBy?: boolean;
  /** `X-XSS-Protection: 0` (turns off the legacy, exploitable XSS auditor). @defaultValue `true` */
  readonly xXssProtection?: boolean;
  /**
   * `Cache-Control` added to responses to authenticated requests whose handler set
   * none, so a shared cache or the browser's back button never shows one user's page
   * to another. `true` sends `no-store`, a string sends that value, `false` never.
   * @defaultValue `true` (`no-store`)
   */
  readonly cacheControl?: boolean | string;
  /**
   * More headers to send on every response, e.g. `Permissions-Policy`. Names are
   * case-insensitive; values must be visible ASCII. Headers managed by an option
   * above, `Cache-Control`, `Set-Cookie` and the framing headers are refused.
   * @defaultValue `{}`
   */
  readonly additionalHeaders?: Readonly<Record<string, string>>;
}

/** Options of `Cross-Origin-Embedder-Policy`. */
export interface CrossOriginEmbedderPolicyOptions {
  /** @defaultValue `'require-corp'` */
  readonly policy?: 'require-corp' | 'credentialless' | 'unsafe-none';
}

/** Options of `Cross-Origin-Opener-Policy`. */
export interface CrossOriginOpenerPolicyOptions {
  /** @defaultValue `'same-origin'` */
  readonly policy?:
    'same-origin' | 'same-origin-allow-popups' | 'noopener-allow-popups' | 'unsafe-none';
}

/** Options of `Cross-Origin-Resource-Policy`. */
export interface CrossOriginResourcePolicyOptions {
  /** @defaultValue `'same-origin'` */
  readonly policy?: 'same-origin' | 'same-site' | 'cross-origin';
}

/** A `Referrer-Policy` token (W3C Referrer Policy §3). */
export type ReferrerPolicyToken =
  | 'no-referrer'
  | 'no-referrer-when-downgrade'
  | 'same-origin'
  | 'origin'
  | 'strict-origin'
  | 'origin-when-cross-origin'
  | 'strict-origin-when-cross-origin'
  | 'unsafe-url';

/** Options of `Referrer-Policy`. */
export interface ReferrerPolicyOptions {
  /**
   * One token, or several in fallback order (the browser uses the last it knows).
   * @defaultValue `'no-referrer'`
   */
  readonly policy?: ReferrerPolicyToken | readonly ReferrerPolicyToken[];
}

/** Options of `Strict-Transport-Security` (RFC 6797). */
export interface StrictTransportSecurityOptions {
  /** Seconds the browser keeps to HTTPS, a whole number ≥ 0 (0 clears it). @defaultValue `31536000` (one year) */
  readonly maxAge?: number;
  /** Apply to every subdomain too. @defaultValue `true` */
  readonly includeSubDomains?: boolean;
  /**
   * Ask to be put on the browsers' preload list; needs `maxAge` of at least one year
   * and `includeSubDomains` (hstspreload.org's rules). Hard to undo: read hstspreload.org first.
   * @defaultValue `false`
   */
  readonly preload?: boolean;
}

/** Options of `X-DNS-Prefetch-Control`. */
export interface XDnsPrefetchControlOptions {
  /** Send `on` instead of `off`. @defaultValue `false` */
  readonly allow?: boolean;
}

/** Options of `X-Frame-Options` (CSP `frame-ancestors` supersedes it in modern browsers). */
export interface XFrameOptionsOptions {
  /** Case-insensitive. @defaultValue `'sameorigin'` */
  readonly action?: 'deny' | 'sameorigin';
}

/** Options of `X-Permitted-Cross-Domain-Policies` (Adobe clients). */
export interface XPermittedCrossDomainPoliciesOptions {
  /** @defaultValue `'none'` */
  readonly permittedPolicies?: 'none' | 'master-only' | 'by-content-type' | 'all';
}
