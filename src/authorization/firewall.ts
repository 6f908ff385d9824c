import type { SecurityRequest } from '../core/request.js';
import type { SecurityResponse } from '../core/security.js';
import { errorResponse } from './entry-points.js';
import {
  resolveFirewallOptions,
  type FirewallConfig,
  type FirewallOptions,
} from './firewall-options.js';
import { HostCheck } from './host.js';
import { hasDuplicate } from './single-headers.js';

/**
 * Why the {@link Firewall} rejected a request. Stable strings, for events and logs.
 *
 * The first four are always checked: an HTTP method outside the allow-list, a raw
 * path longer than the limit, a `#` in the request target, a path that does not
 * start with `/` (e.g. the `*` of `OPTIONS *`), and percent-encoding that is not
 * `%` + two hex digits or does not decode as UTF-8 (`%zz`, `%e9`, overlong `%c0%ae`).
 * Each of the path checks after them has a switch in {@link FirewallOptions}.
 *
 * Then the headers: `duplicate-header` for a header the pipeline trusts as single
 * that came more than once (two `Authorization` lines, `Basic a, Bearer b`, two
 * `Host`s; the list is in {@link FirewallOptions.singleValueHeaders}),
 * `invalid-host` for a `Host`, `:authority` or absolute-form authority that is not
 * a valid `host[:port]` (reg-name, IPv4 or bracketed IPv6; `@`, non-ASCII,
 * whitespace, percent-encoding and ports above 65535 are refused), and
 * `host-not-allowed` for a host outside {@link FirewallOptions.allowedHostnames}.
 */
export type FirewallRejectionReason =
  | 'method-not-allowed'
  | 'path-too-long'
  | 'fragment'
  | 'path-not-absolute'
  | 'malformed-encoding'
  | 'null-character'
  | 'line-break'
  | 'control-character'
  | 'encoded-slash'
  | 'backslash'
  | 'semicolon'
  | 'encoded-percent'
  | 'encoded-period'
  | 'double-slash'
  | 'dot-segment'
  | 'ambiguous-case-folding'
  | 'duplicate-header'
  | 'invalid-host'
  | 'host-not-allowed';

/** The reasons that have a switch, by bit (the order of `SWITCHES`). */
const REASONS = [
  'null-character',
  'line-break',
  'control-character',
  'encoded-slash',
  'backslash',
  'semicolon',
  'encoded-percent',
  'encoded-period',
  'double-slash',
  'dot-segment',
  'ambiguous-case-folding',
] as const satisfies readonly FirewallRejectionReason[];

const NUL = 1 << 0;
const CRLF = 1 << 1;
const CONTROL = 1 << 2;
const ENCODED_SLASH = 1 << 3;
const BACKSLASH = 1 << 4;
const SEMICOLON = 1 << 5;
const ENCODED_PERCENT = 1 << 6;
const ENCODED_PERIOD = 1 << 7;
const DOUBLE_SLASH = 1 << 8;
const DOT_SEGMENT = 1 << 9;
const CASE_FOLDING = 1 << 10;

/** A path of unreserved characters, sub-delimiters (but `;`), `:`, `@` and `/`: nothing to decode. */
const PLAIN = /^[\w\-.~!$&'()*+,=:@/]*$/u;
const DOT_SEGMENTS = /[/\\]\.\.?(?:;[^/\\]*)?(?:[/\\]|$)/u;
const DECODED_CONTROL = /[\u0080-\u009f\u2028\u2029]/u;
/** Characters that case-insensitive `iu` matching folds to ASCII letters (`ſ` → s, K → k). */
const FOLDS_TO_ASCII = /[\u017f\u212a]/u;

/**
 * Spring's StrictHttpFirewall for every framework: rejects, with 400, a request whose
 * path is not in normal form, before any authenticator or rule sees it. Such paths
 * are how URL rules get bypassed: `/admin;x`, `/admin/..;/`, `/%2e%2e/admin`,
 * `//admin`, `/admin%2f..`, `/admin%00.json`, `/admin/%0a`. It also rejects a
 * request with two credentials (node keeps the first `Authorization` line only,
 * so `Basic user…` + `Basic admin…` was the first user) or a malformed or
 * unlisted `Host` (see {@link FirewallRejectionReason}).
 *
 * {@link Firewall.check} is pure: it publishes nothing. The caller (the
 * `SecurityTransform`) publishes the `request-rejected` event and answers with
 * {@link Firewall.reject}.
 *
 * @example
 * ```ts
 * import { Firewall } from 'portcullis';
 * const firewall = new Firewall({ allowSemicolon: true, allowedMethods: ['GET', 'POST'] });
 * const reason = firewall.check(request); // e.g. 'encoded-slash', or null
 * if (reason) return firewall.reject(reason, request); // 400
 * ```
 */
export class Firewall {
  readonly #config: FirewallConfig;
  readonly #hosts: HostCheck;

  /** @throws ConfigurationError for an unknown or invalid option */
  constructor(options?: FirewallOptions) {
    this.#config = resolveFirewallOptions(options);
    this.#hosts = new HostCheck(this.#config.allowedHostnames);
    Object.freeze(this);
  }

  /** Why the request must be rejected, or `null` when it may proceed. Pure and fast. */
  check(request: SecurityRequest): FirewallRejectionReason | null {
    const config = this.#config;
    if (!config.methods.has(request.method)) return 'method-not-allowed';
    const raw = request.rawPath;
    if (raw.length > config.maxPathLength) return 'path-too-long';
    const url = request.url;
    if (url.includes('#')) return 'fragment';
    // `\` first: an absolute-form target `http://host\admin` (extractRawPath ends
    // the authority at `\`, as WHATWG URL parsers do); it counts as a backslash.
    const first = raw.charCodeAt(0);
    if (first !== 0x2f && first !== 0x5c) return 'path-not-absolute';
    let found = 0;
    if (PLAIN.test(raw)) {
      if (raw.includes('//')) found |= DOUBLE_SLASH;
      if (DOT_SEGMENTS.test(raw)) found |= DOT_SEGMENT;
    } else {
      found = scan(raw);
      if (found < 0) return 'malformed-encoding';
    }
    found &= config.enabled;
    if (found !== 0) return REASONS[31 - Math.clz32(found & -found)] ?? 'control-character';
    if (hasDuplicate(request, config.singleValueHeaders)) return 'duplicate-header';
    return this.#hosts.check(request);
  }

  /**
   * The 400 response for a rejected request: plain text or problem details by the
   * Accept header (or the `problemDetails` option). The body never echoes the path.
   */
  reject(_reason: FirewallRejectionReason, request: SecurityRequest): SecurityResponse {
    return errorResponse(400, request, { problemDetails: this.#config.problemDetails });
  }
}

/** Every finding of a raw path, as bits; `-1` for malformed percent-encoding. */
function scan(raw: string): number {
  let found = 0;
  let encoded = false;
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code === 0x25) {
      const byte = hex(raw.charCodeAt(i + 1)) * 16 + hex(raw.charCodeAt(i + 2));
      if (!(byte >= 0)) return -1;
      encoded = true;
      found |= classify(byte, true);
      i += 2;
    } else if (code === 0x2f) {
      if (raw.charCodeAt(i + 1) === 0x2f) found |= DOUBLE_SLASH;
    } else {
      found |= classify(code, false);
    }
  }
  let decoded = raw;
  if (encoded) {
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return -1;
    }
    if (DECODED_CONTROL.test(decoded)) found |= CONTROL;
  }
  if (FOLDS_TO_ASCII.test(decoded)) found |= CASE_FOLDING;
  if (DOT_SEGMENTS.test(decoded)) found |= DOT_SEGMENT;
  return found;
}

/** The findings for one character (raw) or one percent-encoded byte. */
function classify(code: number, encoded: boolean): number {
  if (code === 0) return NUL;
  if (code === 0x0a || code === 0x0d) return CRLF;
  if (code < 0x20 || code === 0x7f) return CONTROL;
  if (code === 0x5c) return BACKSLASH;
  if (code === 0x3b) return SEMICOLON;
  if (encoded) {
    if (code === 0x2f) return ENCODED_SLASH;
    if (code === 0x25) return ENCODED_PERCENT;
    if (code === 0x2e) return ENCODED_PERIOD;
    return 0;
  }
  if ((code >= 0x80 && code <= 0x9f) || code === 0x2028 || code === 0x2029) return CONTROL;
  return 0;
}

/** The value of a hex digit, or `NaN`. */
function hex(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x57;
  return Number.NaN;
}
