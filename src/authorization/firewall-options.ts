import { ConfigurationError } from '../core/errors.js';
import { requireInteger, requireNames } from '../core/validate.js';
import { parseHost } from './host.js';
import { booleanOption, checkOptionNames, requireMethods } from './options.js';
import { SINGLE_VALUE_HEADERS } from './single-headers.js';

/**
 * Options of {@link Firewall}. Every check is on by default; each `allow…` switch
 * turns one off. The `dangerously…` switches let through characters with known
 * exploit classes (string truncation, header and log injection): turn them on only
 * when every component behind the firewall is known to handle them.
 */
export interface FirewallOptions {
  /**
   * The HTTP methods let through (case-insensitive; compared in upper case). Others
   * are rejected with `method-not-allowed`, as Spring's StrictHttpFirewall does.
   * @defaultValue `['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']`
   */
  readonly allowedMethods?: readonly string[];
  /**
   * The longest raw (still encoded) path let through, in characters (`path-too-long`).
   * @defaultValue `8192`
   */
  readonly maxPathLength?: number;
  /** Let `%2F` (an encoded `/`) through (`encoded-slash`). @defaultValue `false` */
  readonly allowEncodedSlash?: boolean;
  /** Let `\` and `%5C` through (`backslash`); rules then see `\` as `/`. @defaultValue `false` */
  readonly allowBackslash?: boolean;
  /** Let `;` and `%3B` through (`semicolon`; Java servers read path parameters after it). @defaultValue `false` */
  readonly allowSemicolon?: boolean;
  /** Let `%25` (an encoded `%`, used for double encoding) through (`encoded-percent`). @defaultValue `false` */
  readonly allowUrlEncodedPercent?: boolean;
  /** Let `%2E` (an encoded `.`) through (`encoded-period`). @defaultValue `false` */
  readonly allowUrlEncodedPeriod?: boolean;
  /** Let `//` through (`double-slash`); rules then see one `/`. @defaultValue `false` */
  readonly allowDoubleSlash?: boolean;
  /** Let `.` and `..` segments through (`dot-segment`); rules then see them resolved. @defaultValue `false` */
  readonly allowDotSegments?: boolean;
  /**
   * Let `ſ` (U+017F) and the Kelvin sign (U+212A) through (`ambiguous-case-folding`).
   * Case-insensitive rules (the default) fold them to `s` and `k`, routers do not:
   * a permit rule for `/assets/.*` would also open `/aſſets/...` to a route that
   * the router reads differently.
   * @defaultValue `false`
   */
  readonly allowAmbiguousCaseFolding?: boolean;
  /** Let NUL (raw or `%00`) through (`null-character`). @defaultValue `false` */
  readonly dangerouslyAllowNull?: boolean;
  /** Let CR and LF (raw, `%0D`, `%0A`) through (`line-break`). @defaultValue `false` */
  readonly dangerouslyAllowCrLf?: boolean;
  /**
   * Let the other control characters (C0, DEL, C1, U+2028, U+2029; raw or encoded)
   * through (`control-character`).
   * @defaultValue `false`
   */
  readonly dangerouslyAllowControlCharacters?: boolean;
  /**
   * The host names a request may name, in `Host`, HTTP/2's `:authority` and an
   * absolute-form request target (Spring's `StrictHttpFirewall.setAllowedHostnames`):
   * a list of names (compared case-insensitively, without the port; an IPv6 address
   * in brackets, `[::1]`), or a predicate given the lower-cased name. Others are
   * rejected with `host-not-allowed`, and so is a request that names no host at all
   * (HTTP/1.0 may omit `Host`). Whatever this says, a host that is not a valid
   * `host[:port]` is rejected with `invalid-host`.
   * @defaultValue every valid host
   */
  readonly allowedHostnames?: readonly string[] | ((hostname: string) => boolean);
  /**
   * More headers to refuse with `duplicate-header` when they come more than once (a
   * custom token header, a renamed CSRF header), besides the built-in list:
   * `Authorization`, `Host`, `Origin`, `Sec-Fetch-Site`, `Content-Type`,
   * `X-Requested-With`, `X-CSRF-Token`.
   * @defaultValue `[]`
   */
  readonly singleValueHeaders?: readonly string[];
  /**
   * `true`: 400 bodies are always RFC 9457 problem details JSON; `false`: always plain
   * text; unset: the Accept header decides.
   * @defaultValue negotiated by Accept
   */
  readonly problemDetails?: boolean;
}

/** The switches of {@link FirewallOptions}, in the order their reasons are reported. */
export const SWITCHES = [
  'dangerouslyAllowNull',
  'dangerouslyAllowCrLf',
  'dangerouslyAllowControlCharacters',
  'allowEncodedSlash',
  'allowBackslash',
  'allowSemicolon',
  'allowUrlEncodedPercent',
  'allowUrlEncodedPeriod',
  'allowDoubleSlash',
  'allowDotSegments',
  'allowAmbiguousCaseFolding',
] as const;

/** A firewall configuration with every default filled in. @internal */
export interface FirewallConfig {
  readonly methods: ReadonlySet<string>;
  readonly maxPathLength: number;
  /** The checks that are on: a bit per entry of {@link SWITCHES}. */
  readonly enabled: number;
  readonly problemDetails: boolean | 'negotiate';
  /** The host-name allow-list as a predicate, when there is one. */
  readonly allowedHostnames: ((hostname: string) => boolean) | undefined;
  /** Every header refused when repeated (lower-case). */
  readonly singleValueHeaders: readonly string[];
}

const DEFAULT_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'];
const NAMES = [
  'allowedMethods',
  'maxPathLength',
  'problemDetails',
  'allowedHostnames',
  'singleValueHeaders',
  ...SWITCHES,
];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u;

/**
 * Validates {@link FirewallOptions} (unknown names are rejected with a "did you
 * mean" hint) and merges them with the defaults into a new object.
 *
 * @internal
 */
export function resolveFirewallOptions(options: FirewallOptions | undefined): FirewallConfig {
  const o = checkOptionNames('Firewall', options, NAMES);
  let enabled = 0;
  SWITCHES.forEach((name, bit) => {
    if (!booleanOption(name, o[name], false)) enabled |= 1 << bit;
  });
  if (typeof o.allowedMethods === 'string') {
    throw new ConfigurationError('allowedMethods', 'must be an array of method names');
  }
  const methods =
    o.allowedMethods === undefined
      ? DEFAULT_METHODS
      : requireMethods('allowedMethods', o.allowedMethods);
  return {
    methods: new Set(methods),
    maxPathLength:
      o.maxPathLength === undefined
        ? 8192
        : requireInteger('maxPathLength', o.maxPathLength, 1, 1_048_576),
    enabled,
    problemDetails:
      o.problemDetails === undefined
        ? 'negotiate'
        : booleanOption('problemDetails', o.problemDetails, false),
    allowedHostnames: hostnamePredicate(o.allowedHostnames),
    singleValueHeaders: singleValueHeaders(o.singleValueHeaders),
  };
}

function hostnamePredicate(option: unknown): ((hostname: string) => boolean) | undefined {
  if (option === undefined) return undefined;
  if (typeof option === 'function') {
    const test = option as (hostname: string) => unknown;
    // A predicate that throws refuses the host (fail closed).
    return (hostname) => {
      try {
        return test(hostname) === true;
      } catch {
        return false;
      }
    };
  }
  const names = new Set(
    requireNames('allowedHostnames', option).map((name) => {
      const host = parseHost(name);
      if (host === undefined || host !== name.toLowerCase()) {
        throw new ConfigurationError(
          'allowedHostnames',
          'must list host names without a port, e.g. "app.example.com" or "[::1]"',
        );
      }
      return host;
    }),
  );
  return (hostname) => names.has(hostname);
}

function singleValueHeaders(option: unknown): readonly string[] {
  if (option === undefined) return SINGLE_VALUE_HEADERS;
  const extra = requireNames('singleValueHeaders', option).map((name) => {
    if (!HEADER_NAME.test(name)) {
      throw new ConfigurationError('singleValueHeaders', 'must list header names');
    }
    return name.toLowerCase();
  });
  if (extra.includes('cookie')) {
    throw new ConfigurationError('singleValueHeaders', 'must not list Cookie (it may repeat)');
  }
  return [...new Set([...SINGLE_VALUE_HEADERS, ...extra])];
}
