import ipaddr from 'ipaddr.js';
import { ConfigurationError } from '../core/errors.js';
import type { SecurityRequest } from '../core/request.js';

/**
 * Which proxies in front of the server may say who the client is (Express's `trust
 * proxy`, without its forgeable `true`):
 *
 * - a number `n`: exactly `n` proxies stand in front of the server, each appending
 *   the address it saw; the client is the `n`-th address from the right of the
 *   forwarded header (`1`: its last entry);
 * - a list of addresses and CIDR ranges (`'10.0.0.0/8'`, `'2001:db8::/32'`, and the
 *   names `'loopback'`, `'linklocal'`, `'uniquelocal'`): the proxies are the hops at
 *   those addresses; the client is the first address, from the right, not in them.
 *
 * Absent, `0` or `[]`: no proxy is trusted, the forwarded headers are ignored and the
 * client is the socket's peer. Trusting a proxy that is not there lets every client
 * choose its address.
 */
export type TrustedProxies = number | readonly string[];

/** Options of {@link ClientAddressResolver}. */
export interface ClientAddressOptions {
  /** See {@link TrustedProxies}. @defaultValue none: the socket address */
  readonly trustedProxies?: TrustedProxies;
  /**
   * The header the trusted proxies write: `x-forwarded-for`, or RFC 7239's
   * `forwarded` (its `for=` parameters). Only this one is read: the other, which the
   * proxy passes on untouched, is the client's to forge.
   * @defaultValue `'x-forwarded-for'`
   */
  readonly forwardedHeader?: 'x-forwarded-for' | 'forwarded';
}

const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/**
 * Resolves the address of the client of a request, as the login throttles and rate
 * limits count it: the socket's peer, or with {@link TrustedProxies} the address the
 * trusted proxies forwarded. IPv4-mapped IPv6 addresses are read as IPv4.
 *
 * @example
 * ```ts
 * // Behind one load balancer that appends to X-Forwarded-For:
 * const clients = new ClientAddressResolver({ trustedProxies: 1 });
 * clients.resolve(request); // '203.0.113.7'
 * ```
 */
export class ClientAddressResolver {
  readonly #hops: number;
  readonly #ranges: readonly Range[];
  readonly #header: 'x-forwarded-for' | 'forwarded';
  #warned = false;

  constructor(options: ClientAddressOptions = {}) {
    const trusted = options.trustedProxies ?? 0;
    if (typeof trusted === 'number') {
      if (!Number.isInteger(trusted) || trusted < 0 || trusted > 32) {
        throw new ConfigurationError(
          'trustedProxies',
          'must be a hop count from 0 to 32, or a list of addresses and CIDR ranges',
        );
      }
      this.#hops = trusted;
      this.#ranges = [];
    } else if (Array.isArray(trusted)) {
      this.#hops = 0;
      this.#ranges = (trusted as readonly unknown[]).flatMap((entry) => parseRanges(entry));
    } else {
      throw new ConfigurationError(
        'trustedProxies',
        'must be a hop count or a list of addresses and CIDR ranges',
      );
    }
    const header: unknown = options.forwardedHeader ?? 'x-forwarded-for';
    if (header !== 'x-forwarded-for' && header !== 'forwarded') {
      throw new ConfigurationError('forwardedHeader', "must be 'x-forwarded-for' or 'forwarded'");
    }
    this.#header = header;
  }

  /** Whether any proxy is trusted (else the forwarded headers are never read). */
  get trustsProxies(): boolean {
    return this.#hops > 0 || this.#ranges.length > 0;
  }

  /** The client's address (normalized, IPv4 for an IPv4-mapped one), or `undefined` when the socket has none. */
  resolve(request: Pick<SecurityRequest, 'clientAddress' | 'header'>): string | undefined {
    return this.resolveKeyed(request)?.address ?? request.clientAddress;
  }

  /**
   * The client's address and the key it is counted under ({@link addressKey}), or
   * `undefined` when the socket has no address that parses. @internal
   */
  resolveKeyed(
    request: Pick<SecurityRequest, 'clientAddress' | 'header'>,
  ): ParsedAddress | undefined {
    const peer = parsed(request.clientAddress);
    if (peer === undefined) return undefined;
    if (!this.trustsProxies) {
      this.#warnIfProxied(request, peer.ip);
      return peer;
    }
    const forwarded = this.#forwarded(request);
    let client = peer;
    let index = forwarded.length; // the hops walked so far, from the right
    for (let hop = 1; index > 0; hop++) {
      if (this.#hops > 0 ? hop > this.#hops : !this.#trusted(client.ip)) break;
      const next = parsed(forwarded[--index]);
      // A hop a trusted proxy wrote is an address; anything else ends the walk at the last one known.
      if (next === undefined) break;
      client = next;
    }
    return client;
  }

  #trusted(address: Address): boolean {
    return this.#ranges.some((range) => address.kind() === range[0].kind() && address.match(range));
  }

  #forwarded(request: Pick<SecurityRequest, 'header'>): string[] {
    const value = request.header(this.#header);
    if (value === undefined || value === '') return [];
    return this.#header === 'forwarded' ? forwardedFor(value) : value.split(',');
  }

  /** Warns once that requests look proxied while no proxy is trusted: every client would share the proxy's counters. */
  #warnIfProxied(request: Pick<SecurityRequest, 'header'>, peer: Address): void {
    if (this.#warned || request.header(this.#header) === undefined) return;
    const range = peer.range();
    if (range !== 'loopback' && range !== 'private' && range !== 'uniqueLocal') return;
    this.#warned = true;
    process.emitWarning(
      `portcullis: requests from a private address carry ${this.#header}, but trustedProxies is not set: every client behind that proxy is counted as one address`,
      { code: 'PORTCULLIS_UNTRUSTED_PROXY' },
    );
  }
}

/**
 * The key a client address is counted under: an IPv4 address as it is, an IPv6
 * address by its /64 (one subscriber's network, which a client can rotate through
 * freely), e.g. `2001:db8:1:2::/64`. Anything else is returned as it is.
 */
export function addressKey(address: string): string {
  return parsed(address)?.key ?? address;
}

/** An address as read once: the ipaddr object, its text, and its counting key. @internal */
export interface ParsedAddress {
  readonly ip: Address;
  /** Normalized (IPv4 for an IPv4-mapped address). */
  readonly address: string;
  /** IPv4 as it is, IPv6 by its /64. */
  readonly key: string;
}

/** Addresses repeat from request to request: each is parsed once (a bounded memo). */
const MEMO_SIZE = 4096;
const memo = new Map<string, ParsedAddress | null>();

function parsed(entry: string | undefined): ParsedAddress | undefined {
  if (entry === undefined) return undefined;
  const known = memo.get(entry);
  if (known !== undefined) return known ?? undefined;
  const ip = parse(entry);
  let found: ParsedAddress | null = null;
  if (ip !== undefined) {
    const key =
      ip.kind() === 'ipv4'
        ? ip.toString()
        : `${(ip as ipaddr.IPv6).parts
            .slice(0, 4)
            .map((part) => part.toString(16))
            .join(':')}::/64`;
    found = Object.freeze({ ip, address: ip.toString(), key });
  }
  // Forgetting everything at once keeps the memo bounded whatever clients send.
  if (memo.size >= MEMO_SIZE) memo.clear();
  if (entry.length <= 64) memo.set(entry, found);
  return found ?? undefined;
}

/** The address an entry names (a port, brackets and a zone dropped), or `undefined`. */
function parse(entry: string | undefined): Address | undefined {
  if (entry === undefined) return undefined;
  let text = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/u.exec(text);
  if (bracketed !== null) text = bracketed[1] as string;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/u.test(text)) text = text.slice(0, text.indexOf(':'));
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  if (!canonical(text)) return undefined;
  const address = ipaddr.parse(text);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

/** Only canonical forms: ipaddr.parse also takes '0x7f.1', '127.1' and octal '010.0.0.1', which no proxy writes. */
function canonical(text: string): boolean {
  return (
    ipaddr.IPv4.isValidFourPartDecimal(text) || (text.includes(':') && ipaddr.IPv6.isValid(text))
  );
}

/** The `for=` values of an RFC 7239 `Forwarded` header, left to right (`''` for an element without one). */
function forwardedFor(value: string): string[] {
  const hops: string[] = [];
  for (const element of splitOutsideQuotes(value, ',')) {
    let found = '';
    for (const pair of splitOutsideQuotes(element, ';')) {
      const eq = pair.indexOf('=');
      if (eq === -1 || pair.slice(0, eq).trim().toLowerCase() !== 'for') continue;
      found = unquote(pair.slice(eq + 1).trim());
    }
    hops.push(found);
  }
  return hops;
}

function splitOutsideQuotes(value: string, separator: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (char === '"' && value[i - 1] !== '\\') quoted = !quoted;
    else if (char === separator && !quoted) {
      parts.push(value.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(value.slice(start));
  return parts;
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"')
    ? value.slice(1, -1).replace(/\\(.)/gu, '$1')
    : value;
}

function parseRanges(entry: unknown): Range[] {
  if (typeof entry !== 'string' || entry === '') {
    throw new ConfigurationError(
      'trustedProxies',
      'every entry must be an address, a CIDR range or a range name',
    );
  }
  const named = NAMED_RANGES[entry];
  if (named !== undefined) return named.map((cidr) => ipaddr.parseCIDR(cidr) as Range);
  let range: Range;
  try {
    if (!canonical(entry.split('/')[0] as string)) throw new Error('not canonical');
    if (entry.includes('/')) range = ipaddr.parseCIDR(entry);
    else {
      const address = ipaddr.parse(entry);
      range = [address, address.kind() === 'ipv4' ? 32 : 128];
    }
  } catch {
    throw new ConfigurationError(
      'trustedProxies',
      `${JSON.stringify(entry.slice(0, 64))} is not an address, a CIDR range or one of 'loopback', 'linklocal', 'uniquelocal'`,
    );
  }
  // Addresses are compared as IPv4 when IPv4-mapped (see parse), so a mapped range is too.
  const [base, bits] = range;
  if (base.kind() === 'ipv6' && (base as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [[(base as ipaddr.IPv6).toIPv4Address(), bits - 96]];
  }
  return [range];
}
