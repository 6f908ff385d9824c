import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { createLinkedSecurityRequest, type SecurityRequest } from '../core/request.js';

/** A node `http` request as portcullis reads it (node, Express, Connect, a ws upgrade). */
export type NodeRequestLike = Pick<IncomingMessage, 'headers' | 'method' | 'url' | 'socket'>;

/** Header values read when the request itself has no such header (by lower-case name). */
export type HeaderFallback = ReadonlyMap<string, string>;

const NONE: HeaderFallback = new Map();

/**
 * The {@link SecurityRequest} view of a node `http` request. Express and Connect
 * rewrite `req.url` below a mount point, so `originalUrl` is preferred: rules always
 * see the full path the client asked for. Repeated headers are joined with `, `
 * (cookies with `; `), every line of them: node's `req.headers` keeps only the
 * first `Authorization`, `Host` or `Content-Type`, so the lines are read from
 * `req.headersDistinct` where the request has it.
 *
 * @internal
 */
export function nodeRequestView(
  req: NodeRequestLike,
  fallback: HeaderFallback = NONE,
  secure: boolean = (req.socket as Partial<TLSSocket>).encrypted === true,
): SecurityRequest {
  const headers = req.headers;
  // `false` once known that no line repeats (`??=` would recompute a `null`).
  let distinct: DistinctHeaders | false | undefined;
  const raw = (name: string): string | readonly string[] | undefined => {
    distinct ??= repeatedLines(req) ?? false;
    return (distinct === false ? undefined : distinct[name]) ?? headers[name];
  };
  const header = (name: string): string | undefined => {
    const values = raw(name);
    if (values === undefined || typeof values === 'string') return values;
    return values.length === 1 ? values[0] : values.join(name === 'cookie' ? '; ' : ', ');
  };
  const lines = (name: string): readonly string[] => {
    const values = raw(name);
    if (values === undefined) return NO_LINES;
    return typeof values === 'string' ? [values] : values;
  };
  // Only a view made of the request alone is linked to it: one that reads other
  // values as headers (connection parameters) may carry a credential the request does not.
  return createLinkedSecurityRequest(
    {
      method: req.method ?? 'GET',
      url: (req as NodeRequestLike & { originalUrl?: string }).originalUrl ?? req.url ?? '/',
      header: withFallback(header, fallback),
      headerValues: valuesWithFallback(lines, fallback),
      clientAddress: req.socket.remoteAddress,
      secure,
    },
    fallback.size === 0 ? req : undefined,
  );
}

type DistinctHeaders = Readonly<Record<string, readonly string[] | undefined>>;

/**
 * `req.headersDistinct` when a header line repeats, else `null` (`req.headers` is
 * then exact). More raw lines than names in `req.headers` means one did; as many
 * or fewer proves nothing (a middleware may have added a name, e.g. a request id),
 * so the raw names are then compared, and node need not parse the headers twice
 * when none repeats.
 */
function repeatedLines(req: NodeRequestLike): DistinctHeaders | null {
  const raw = (req as Partial<Pick<IncomingMessage, 'rawHeaders'>>).rawHeaders;
  if (
    Array.isArray(raw) &&
    raw.length <= Object.keys(req.headers).length * 2 &&
    !hasRepeatedName(raw)
  ) {
    return null;
  }
  const distinct = (req as Partial<Pick<IncomingMessage, 'headersDistinct'>>).headersDistinct;
  // node's HTTP/2 request has no headersDistinct and keeps the first of repeated
  // single-value fields (Authorization): read the lines from rawHeaders then.
  return distinct ?? (Array.isArray(raw) ? linesOf(raw) : null);
}

/** The lines of each header (by lower-case name) from node's raw header list. */
function linesOf(raw: readonly string[]): DistinctHeaders {
  const lines: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = String(raw[i]).toLowerCase();
    (lines[name] ??= []).push(String(raw[i + 1]));
  }
  return lines;
}

/** Up to this many lines, names are compared pairwise (cheaper than a set of lower-cased names). */
const PAIRWISE_LINES = 16;

/** Whether a name occurs twice (in any case) among node's raw header lines. */
function hasRepeatedName(raw: readonly string[]): boolean {
  const end = raw.length;
  if (end > PAIRWISE_LINES * 2) {
    const seen = new Set<string>();
    for (let i = 0; i < end; i += 2) {
      const name = String(raw[i]).toLowerCase();
      if (seen.has(name)) return true;
      seen.add(name);
    }
    return false;
  }
  for (let i = 0; i < end; i += 2) {
    const a = raw[i] as string;
    for (let j = i + 2; j < end; j += 2) {
      const b = raw[j] as string;
      // Same length and first letter before the lower-casing.
      if (
        a.length === b.length &&
        (a === b ||
          ((a.charCodeAt(0) | 0x20) === (b.charCodeAt(0) | 0x20) &&
            a.toLowerCase() === b.toLowerCase()))
      ) {
        return true;
      }
    }
  }
  return false;
}

const NO_LINES: readonly string[] = Object.freeze([]);

/**
 * The {@link SecurityRequest} view of a Fetch API `Request`. The URL is absolute, so
 * `secure` is its scheme; the client address is unknown unless given. The Fetch
 * API joins repeated header lines into one value, so `headerValues` has one entry.
 *
 * @internal
 */
export function fetchRequestView(
  request: Request,
  clientAddress?: string,
  fallback: HeaderFallback = NONE,
): SecurityRequest {
  const url = request.url;
  // HTTP/2 pseudo-headers (`:authority`) are no header names to the Fetch API, which throws.
  const header = (name: string): string | undefined =>
    name.charCodeAt(0) === 0x3a ? undefined : (request.headers.get(name) ?? undefined);
  // Linked to the request only when made of it alone (see nodeRequestView).
  return createLinkedSecurityRequest(
    {
      method: request.method,
      url,
      // One value per header (the Fetch API joined repeated lines): the view's default
      // `headerValues`, the value of `header` as the only line.
      header: withFallback(header, fallback),
      clientAddress,
      secure: url.startsWith('https:'),
    },
    fallback.size === 0 ? request : undefined,
  );
}

/** Whether a value is a Fetch API `Request` (or looks enough like one). @internal */
export function isFetchRequest(value: unknown): value is Request {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<Request>).url === 'string' &&
    typeof (value as Partial<Request>).headers?.get === 'function'
  );
}

/** Whether a value is a node `http` request (or looks enough like one). @internal */
export function isNodeRequest(value: unknown): value is NodeRequestLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<NodeRequestLike>).headers === 'object' &&
    typeof (value as Partial<NodeRequestLike>).socket === 'object'
  );
}

function withFallback(
  header: (name: string) => string | undefined,
  fallback: HeaderFallback,
): (name: string) => string | undefined {
  if (fallback.size === 0) return header;
  return (name) => header(name) ?? fallback.get(name);
}

function valuesWithFallback(
  values: (name: string) => readonly string[],
  fallback: HeaderFallback,
): (name: string) => readonly string[] {
  if (fallback.size === 0) return values;
  return (name) => {
    const found = values(name);
    if (found.length > 0) return found;
    const value = fallback.get(name);
    return value === undefined ? NO_LINES : [value];
  };
}

/**
 * The connection parameters to read as headers: the configured names the client
 * sent as strings, when `allowed` (a WebSocket connection, or any request when
 * the application opted in).
 *
 * @internal
 */
export function readConnectionParams(
  names: readonly string[],
  info: { readonly connectionParams?: unknown } | null | undefined,
  allowed: boolean,
): ReadonlyMap<string, string> {
  const params = info?.connectionParams as Readonly<Record<string, unknown>> | null | undefined;
  const found = new Map<string, string>();
  if (!params || !allowed || typeof params !== 'object') return found;
  for (const name of names) {
    if (!Object.hasOwn(params, name)) continue;
    const value = params[name];
    if (typeof value === 'string') found.set(name.toLowerCase(), value);
  }
  return found;
}
