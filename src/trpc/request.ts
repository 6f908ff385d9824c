import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { createSecurityRequest, type SecurityRequest } from '../core/request.js';

/** A node `http` request as portcullis reads it (node, standalone, Express, ws upgrade). */
export type NodeRequestLike = Pick<IncomingMessage, 'headers' | 'method' | 'url' | 'socket'>;

/** A Fastify request: the node request is `raw`. */
export interface FastifyRequestLike {
  readonly raw: NodeRequestLike;
}

/** The connection parameters a client sent (`connectionParams` of `createWSClient`). */
export type ConnectionParams = Readonly<Record<string, string | undefined>>;

/**
 * What the tRPC adapters pass to `createContext`, as far as portcullis reads it:
 * `req` (a node request, a Fetch `Request` or a Fastify request) and `info`.
 */
export interface ContextOptionsLike {
  readonly req: NodeRequestLike | Request | FastifyRequestLike;
  readonly info?: { readonly connectionParams?: ConnectionParams | null } | undefined;
}

/**
 * The {@link SecurityRequest} of a `createContext` call. `params` lists the
 * connection parameters read as headers (by lower-case name) when the request has
 * no such header.
 *
 * @internal
 */
export function toSecurityRequest(
  req: ContextOptionsLike['req'],
  params: ReadonlyMap<string, string>,
): SecurityRequest {
  if (isFetchRequest(req)) {
    const url = req.url;
    return createSecurityRequest({
      method: req.method,
      url,
      header: withParams((name) => req.headers.get(name) ?? undefined, params),
      secure: url.startsWith('https:'),
    });
  }
  const node = 'raw' in req ? req.raw : req;
  const headers = node.headers;
  return createSecurityRequest({
    method: node.method ?? 'GET',
    url: (node as NodeRequestLike & { originalUrl?: string }).originalUrl ?? node.url ?? '/',
    header: withParams((name) => {
      const value = headers[name];
      return Array.isArray(value) ? value.join(name === 'cookie' ? '; ' : ', ') : value;
    }, params),
    clientAddress: node.socket.remoteAddress,
    secure: (node.socket as Partial<TLSSocket>).encrypted === true,
  });
}

function isFetchRequest(req: ContextOptionsLike['req']): req is Request {
  return typeof (req as Partial<Request>).headers?.get === 'function';
}

function withParams(
  header: (name: string) => string | undefined,
  params: ReadonlyMap<string, string>,
): (name: string) => string | undefined {
  if (params.size === 0) return header;
  return (name) => header(name) ?? params.get(name);
}

/** Whether the request is a WebSocket upgrade (the ws adapter's `req`). @internal */
export function isWebSocketUpgrade(req: ContextOptionsLike['req']): boolean {
  const node = 'raw' in req ? req.raw : req;
  const upgrade =
    typeof (node as Partial<Request>).headers?.get === 'function'
      ? (node as Request).headers.get('upgrade')
      : (node as { headers: Record<string, unknown> }).headers.upgrade;
  return typeof upgrade === 'string' && upgrade.toLowerCase() === 'websocket';
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
  info: ContextOptionsLike['info'],
  allowed: boolean,
): ReadonlyMap<string, string> {
  const params = info?.connectionParams;
  const found = new Map<string, string>();
  if (!params || !allowed || typeof params !== 'object') return found;
  for (const name of names) {
    if (!Object.hasOwn(params, name)) continue;
    const value = params[name];
    if (typeof value === 'string') found.set(name.toLowerCase(), value);
  }
  return found;
}
