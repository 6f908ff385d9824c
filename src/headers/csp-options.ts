/**
 * Options and directive names of the Content-Security-Policy builder
 * ({@link ContentSecurityPolicyOptions}).
 *
 * @module portcullis
 */

/**
 * The type of `SecurityHeaders.nonce`, the placeholder for the per-request nonce.
 * A plain object rather than a symbol, so it keeps its type in mutable options
 * objects and can be written in a JSON configuration file.
 */
export interface CspNonce {
  readonly cspPlaceholder: 'nonce';
}

/** The type of `SecurityHeaders.dangerouslyDisableDefaultSrc`. */
export interface CspDisableDefaultSrc {
  readonly cspPlaceholder: 'dangerouslyDisableDefaultSrc';
}

/** `SecurityHeaders.nonce`. @internal */
export const NONCE: CspNonce = Object.freeze({ cspPlaceholder: 'nonce' });

/** `SecurityHeaders.dangerouslyDisableDefaultSrc`. @internal */
export const DISABLE_DEFAULT_SRC: CspDisableDefaultSrc = Object.freeze({
  cspPlaceholder: 'dangerouslyDisableDefaultSrc',
});

/** Whether a directive value or source is the placeholder `kind` (by shape, so copies match). @internal */
export function isPlaceholder(
  value: unknown,
  kind: 'nonce' | 'dangerouslyDisableDefaultSrc',
): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { cspPlaceholder?: unknown }).cspPlaceholder === kind
  );
}

/** One source expression (`"'self'"`, `'https://cdn.example'`, `'data:'`) or the nonce placeholder. */
export type CspSource = string | CspNonce;

/**
 * The value of one directive: a list of sources, or one string (split on spaces).
 * An empty list gives a directive without value (`upgrade-insecure-requests`).
 */
export type CspDirectiveValue = string | Iterable<CspSource>;

/** The directives of CSP Level 3 and its companion specifications, and the deprecated ones still seen. */
export const KNOWN_DIRECTIVES = [
  'base-uri',
  'block-all-mixed-content',
  'child-src',
  'connect-src',
  'default-src',
  'fenced-frame-src',
  'font-src',
  'form-action',
  'frame-ancestors',
  'frame-src',
  'img-src',
  'manifest-src',
  'media-src',
  'navigate-to',
  'object-src',
  'plugin-types',
  'prefetch-src',
  'report-to',
  'report-uri',
  'require-sri-for',
  'require-trusted-types-for',
  'sandbox',
  'script-src',
  'script-src-attr',
  'script-src-elem',
  'style-src',
  'style-src-attr',
  'style-src-elem',
  'trusted-types',
  'upgrade-insecure-requests',
  'webrtc',
  'worker-src',
] as const;

/** A directive name in its kebab-case form. */
export type KnownCspDirective = (typeof KNOWN_DIRECTIVES)[number];

/** `'script-src-elem'` → `'scriptSrcElem'`. */
export type CamelCaseDirective<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCaseDirective<Tail>>}`
  : S;

/** What a directive may be set to: sources, `null` to drop a default directive. */
export type CspDirectiveSetting = CspDirectiveValue | null | CspDisableDefaultSrc;

/**
 * Directives by name, camelCase (`scriptSrc`) or kebab-case (`'script-src'`).
 * Known names are listed for completion; other syntactically valid names are
 * accepted for directives newer than this library, unless they look like a typo
 * of a known one.
 */
export type CspDirectives = {
  readonly [
    name in KnownCspDirective | CamelCaseDirective<KnownCspDirective>
  ]?: CspDirectiveSetting;
} & Readonly<Record<string, CspDirectiveSetting>>;

/**
 * Options of the `Content-Security-Policy` header, in helmet's shape.
 *
 * @example
 * ```ts
 * new SecurityHeaders({
 *   contentSecurityPolicy: {
 *     directives: {
 *       scriptSrc: ["'self'", SecurityHeaders.nonce],
 *       connectSrc: ["'self'", 'https://api.example.com'],
 *       objectSrc: null, // drop a default directive
 *     },
 *   },
 * });
 * ```
 */
export interface ContentSecurityPolicyOptions {
  /**
   * The directives. With {@link ContentSecurityPolicyOptions.useDefaults} they replace
   * the default directive of the same name and are added after the others.
   * Values are checked: no `;` or `,`, keywords quoted (`"'self'"`, not `'self'`), no
   * fixed `'nonce-…'` (use `SecurityHeaders.nonce`), `'none'` alone.
   * @defaultValue `{}`
   */
  readonly directives?: CspDirectives;
  /**
   * Start from helmet's default directives: `default-src 'self'`, `base-uri 'self'`,
   * `font-src 'self' https: data:`, `form-action 'self'`, `frame-ancestors 'self'`,
   * `img-src 'self' data:`, `object-src 'none'`, `script-src 'self'`,
   * `script-src-attr 'none'`, `style-src 'self' https: 'unsafe-inline'`,
   * `upgrade-insecure-requests`.
   * @defaultValue `true`
   */
  readonly useDefaults?: boolean;
  /**
   * Send `Content-Security-Policy-Report-Only` instead: violations are reported
   * (add `report-to` or `report-uri`), nothing is blocked.
   * @defaultValue `false`
   */
  readonly reportOnly?: boolean;
}

/** helmet 8's default directives, in helmet's order. @internal */
export const DEFAULT_DIRECTIVES: readonly (readonly [string, readonly string[]])[] = [
  ['default-src', ["'self'"]],
  ['base-uri', ["'self'"]],
  ['font-src', ["'self'", 'https:', 'data:']],
  ['form-action', ["'self'"]],
  ['frame-ancestors', ["'self'"]],
  ['img-src', ["'self'", 'data:']],
  ['object-src', ["'none'"]],
  ['script-src', ["'self'"]],
  ['script-src-attr', ["'none'"]],
  ['style-src', ["'self'", 'https:', "'unsafe-inline'"]],
  ['upgrade-insecure-requests', []],
];
