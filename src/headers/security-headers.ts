import { ConfigurationError } from '../core/errors.js';
import { compileContentSecurityPolicy, type CompiledPolicy } from './content-security-policy.js';
import {
  DISABLE_DEFAULT_SRC,
  NONCE,
  type CspDisableDefaultSrc,
  type CspNonce,
} from './csp-options.js';
import { HEADER_SPECS } from './header-values.js';
import { createNonce } from './nonce.js';
import { additionalHeaders } from './additional-headers.js';
import {
  optionalBoolean,
  requireHeaderValue,
  requireOptions,
  type OptionRecord,
} from './option-checks.js';
import type { SecurityHeadersOptions } from './options.js';

/** One response header: a lower-case name and its value. */
export type HeaderEntry = readonly [name: string, value: string];

/** What one response gets: headers to set, headers to remove, and the CSP nonce if any. */
export interface SecurityHeadersForRequest {
  /** Headers to set, lower-case names, the per-request CSP included. */
  readonly headers: readonly HeaderEntry[];
  /** Headers to remove (`x-powered-by`), lower-case. */
  readonly removed: readonly string[];
  /**
   * This response's CSP nonce (24 base64 characters, 16 random bytes) when a
   * directive holds `SecurityHeaders.nonce`: put it in `<script nonce="…">`.
   */
  readonly nonce: string | undefined;
}

/**
 * The constant headers of a {@link SecurityHeaders} as two plain arrays, kept on its
 * nonce-less {@link SecurityHeaders.forRequest} result under a module-private
 * symbol. V8 reads the elements of frozen tuples on a slower path, which costs
 * about 0.15 µs a response over the default dozen headers.
 */
const COLUMNS = Symbol('portcullis.headerColumns');

interface HeaderColumns {
  readonly names: readonly string[];
  readonly values: readonly string[];
}

/** The plain-array form of `applied`'s headers when it has one. @internal */
export function headerColumns(applied: SecurityHeadersForRequest): HeaderColumns | undefined {
  return (applied as { readonly [COLUMNS]?: HeaderColumns })[COLUMNS];
}

const OPTIONS: readonly (keyof SecurityHeadersOptions)[] = [
  'contentSecurityPolicy',
  ...HEADER_SPECS.map((spec) => spec.option),
  'xPoweredBy',
  'cacheControl',
  'additionalHeaders',
];

/** helmet's legacy aliases, refused so that each header has one name. */
const LEGACY: Readonly<Record<string, string>> = {
  hsts: 'strictTransportSecurity',
  noSniff: 'xContentTypeOptions',
  dnsPrefetchControl: 'xDnsPrefetchControl',
  ieNoOpen: 'xDownloadOptions',
  frameguard: 'xFrameOptions',
  permittedCrossDomainPolicies: 'xPermittedCrossDomainPolicies',
  hidePoweredBy: 'xPoweredBy',
  xssFilter: 'xXssProtection',
};

/**
 * The security response headers, helmet 8's set by default, validated and computed
 * once at construction. Framework-neutral: the `portcullis/node`, `/fetch` and
 * `/fastify` adapters apply it; {@link applySecurityHeaders} and
 * {@link applyToHeaders} apply it by hand.
 *
 * @example
 * ```ts
 * const securityHeaders = new SecurityHeaders({
 *   contentSecurityPolicy: { directives: { scriptSrc: ["'self'", SecurityHeaders.nonce] } },
 * });
 * const { headers, removed, nonce } = securityHeaders.forRequest();
 * ```
 */
export class SecurityHeaders {
  /** Placeholder for the per-request nonce in a CSP directive; sent as `'nonce-…'`. */
  static readonly nonce: CspNonce = NONCE;
  /** Set `default-src` to this to send a policy without it, knowingly. */
  static readonly dangerouslyDisableDefaultSrc: CspDisableDefaultSrc = DISABLE_DEFAULT_SRC;

  /** Headers sent on every response, lower-case names; the CSP only when it uses no nonce. */
  readonly headers: readonly HeaderEntry[];
  /** Headers removed from every response (`x-powered-by` unless `xPoweredBy: false`). */
  readonly removed: readonly string[];
  /**
   * The `Cache-Control` value for responses to authenticated requests whose handler
   * set none (`no-store` by default), or `undefined` when switched off.
   */
  readonly cacheControl: string | undefined;
  /** Whether the CSP holds a nonce, making {@link SecurityHeaders.forRequest} draw one per call. */
  readonly usesNonce: boolean;

  readonly #static: SecurityHeadersForRequest;
  readonly #policy: CompiledPolicy | undefined;

  /** @throws {@link ConfigurationError} naming the option on any invalid option. */
  constructor(options: SecurityHeadersOptions = {}) {
    const record = requireOptions('', options, OPTIONS, LEGACY);
    const policy = buildPolicy(record.contentSecurityPolicy);
    const entries: HeaderEntry[] = [];
    if (policy !== undefined && policy.parts.length === 1) {
      entries.push(Object.freeze([policy.name, policy.parts[0] ?? ''] as const));
    }
    for (const spec of HEADER_SPECS) {
      const value = record[spec.option];
      if (value === false || (value === undefined && !spec.onByDefault)) continue;
      const built = spec.build(value === true ? undefined : value);
      entries.push(Object.freeze([spec.name, built] as const));
    }
    const reserved = [
      ...entries.map(([name]) => name),
      ...HEADER_SPECS.map((spec) => spec.name),
      'content-security-policy',
      'content-security-policy-report-only',
      'x-powered-by',
    ];
    entries.push(...additionalHeaders(record.additionalHeaders, reserved));
    this.headers = Object.freeze(
      entries.map(([name, value]) => Object.freeze([flat(name), flat(value)] as const)),
    );
    const removePoweredBy = optionalBoolean('xPoweredBy', record.xPoweredBy, true);
    this.removed = Object.freeze(removePoweredBy ? ['x-powered-by'] : []);
    const cacheControl = buildCacheControl(record.cacheControl);
    this.cacheControl = cacheControl === undefined ? undefined : flat(cacheControl);
    this.usesNonce = policy !== undefined && policy.parts.length > 1;
    this.#policy = this.usesNonce ? policy : undefined;
    const columns: HeaderColumns = {
      names: this.headers.map(([name]) => name),
      values: this.headers.map(([, value]) => value),
    };
    this.#static = Object.freeze(
      Object.defineProperty(
        { headers: this.headers, removed: this.removed, nonce: undefined },
        COLUMNS,
        { value: columns },
      ),
    );
    Object.freeze(this);
  }

  /**
   * The headers for one response. Without a nonce this is the same frozen object on
   * every call (no allocation); with one, a fresh nonce (16 bytes from the CSPRNG)
   * is joined into the precomputed policy.
   */
  forRequest(): SecurityHeadersForRequest {
    const policy = this.#policy;
    if (policy === undefined) return this.#static;
    const nonce = createNonce();
    const csp: HeaderEntry = [policy.name, policy.parts.join(`'nonce-${nonce}'`)];
    return { headers: [csp, ...this.headers], removed: this.removed, nonce };
  }

  /**
   * The `Cache-Control` value to add when headers are written: {@link SecurityHeaders.cacheControl}
   * for an authenticated request whose handler set no `Cache-Control`, else `undefined`.
   */
  cacheControlFor(authenticated: boolean, handlerSetCacheControl: boolean): string | undefined {
    return authenticated && !handlerSetCacheControl ? this.cacheControl : undefined;
  }
}

/**
 * A copy of a header name or value in one contiguous string. Values built by
 * concatenation are V8 rope strings, which Node's header validation walks more
 * slowly on every response (about 15 ns per header, 0.2 µs for the default set);
 * the copy is made once, at construction. Names and values are checked to be
 * visible ASCII, so the Latin-1 round trip is exact.
 */
function flat(value: string): string {
  return Buffer.from(value, 'latin1').toString('latin1');
}

function buildPolicy(value: OptionRecord[string]): CompiledPolicy | undefined {
  if (value === false) return undefined;
  return compileContentSecurityPolicy(value === undefined || value === true ? {} : value);
}

function buildCacheControl(value: unknown): string | undefined {
  if (value === undefined || value === true) return 'no-store';
  if (value === false) return undefined;
  if (typeof value !== 'string') {
    throw new ConfigurationError('cacheControl', 'must be true, false or a Cache-Control value');
  }
  return requireHeaderValue('cacheControl', value);
}
