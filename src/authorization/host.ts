import { domainToASCII, domainToUnicode } from 'node:url';
import type { SecurityRequest } from '../core/request.js';

/** A reg-name (RFC 3986 §3.2.2) of unreserved characters and sub-delimiters, no `%`. */
const REG_NAME = /^[A-Za-z0-9\-._~!$&'()*+,;=]{1,255}$/u;
/** A bracketed IPv6 address (no zone identifier, no IPvFuture). */
const IP_LITERAL = /^\[[0-9A-Fa-f:.]{2,45}\]$/u;
const PORT = /^[0-9]{1,5}$/u;
/** The authority of an absolute-form request target (RFC 9112 §3.2.2). */
const ABSOLUTE_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/([^/?#\\]*)/iu;

/** How many valid hosts a firewall remembers (each is parsed once). */
const MEMO_SIZE = 64;

/**
 * Checks the hosts a request names: the `Host` header, HTTP/2's `:authority`, and
 * the authority of an absolute-form request target. Each must be a valid
 * `host[:port]`, and its host one that `allowed` admits.
 *
 * @internal
 */
export class HostCheck {
  readonly #allowed: ((hostname: string) => boolean) | undefined;
  readonly #valid = new Map<string, string>();

  constructor(allowed: ((hostname: string) => boolean) | undefined) {
    this.#allowed = allowed;
  }

  /** `invalid-host`, `host-not-allowed`, or `null` when every named host passes. */
  check(request: SecurityRequest): 'invalid-host' | 'host-not-allowed' | null {
    let named = false;
    const host = request.header('host');
    if (host !== undefined) {
      named = true;
      const reason = this.#checkOne(host);
      if (reason !== null) return reason;
    }
    const authority = request.header(':authority');
    if (authority !== undefined) {
      named = true;
      const reason = this.#checkOne(authority);
      if (reason !== null) return reason;
    }
    const url = request.url;
    if (url.charCodeAt(0) !== 0x2f) {
      const absolute = ABSOLUTE_AUTHORITY.exec(url);
      if (absolute) {
        named = true;
        const reason = this.#checkOne(absolute[1] ?? '');
        if (reason !== null) return reason;
      }
    }
    // HTTP/1.0 may omit Host; with an allow-list, a request naming no host is refused.
    return named || this.#allowed === undefined ? null : 'host-not-allowed';
  }

  #checkOne(value: string): 'invalid-host' | 'host-not-allowed' | null {
    let hostname = this.#valid.get(value);
    if (hostname === undefined) {
      hostname = parseHost(value);
      if (hostname === undefined) return 'invalid-host';
      if (this.#valid.size >= MEMO_SIZE) this.#valid.clear();
      this.#valid.set(value, hostname);
    }
    if (this.#allowed !== undefined && !this.#allowed(hostname)) return 'host-not-allowed';
    return null;
  }
}

/**
 * The host name of a `host[:port]` value, lower-cased and without the port (an IPv6
 * address keeps its brackets), or `undefined` when the value is not a valid one:
 * a reg-name, IPv4 or bracketed IPv6 address (RFC 3986 §3.2.2) spelled as the WHATWG
 * URL parser spells it (so `127.1`, `0x7f.0.0.1` or an invalid `xn--` label, which
 * parsers read differently or refuse, are invalid), and a port of 1 to 5 digits up
 * to 65535. No userinfo (`@`), no percent-encoding, no whitespace, nothing outside
 * ASCII, no empty value.
 *
 * @internal
 */
export function parseHost(value: string): string | undefined {
  let host = value;
  let port: string | undefined;
  const close = value.lastIndexOf(']');
  const colon = value.indexOf(':', close + 1);
  if (colon !== -1) {
    host = value.slice(0, colon);
    port = value.slice(colon + 1);
    if (!PORT.test(port) || Number(port) > 65535) return undefined;
  }
  const lower = host.toLowerCase();
  if (IP_LITERAL.test(host)) {
    return parsedHostname(lower) === undefined ? undefined : lower;
  }
  if (!REG_NAME.test(host)) return undefined;
  if (!lower.split('.').every(validAceLabel)) return undefined;
  return parsedHostname(lower) === lower ? lower : undefined;
}

/**
 * A label is fine unless it starts with `xn--` (an IDNA A-label) and does not decode to a
 * Unicode label that encodes back to it. The URL parser alone does not settle it: Node 20
 * and 22 refuse `xn--a`, Node 24 (ada 3) passes it through.
 */
function validAceLabel(label: string): boolean {
  if (!label.startsWith('xn--')) return true;
  const unicode = domainToUnicode(label);
  return unicode !== '' && unicode !== label && domainToASCII(unicode) === label;
}

/** The host name the WHATWG URL parser reads from a host, or `undefined` when it refuses it. */
function parsedHostname(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}
