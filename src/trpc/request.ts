import type { SecurityRequest } from '../core/request.js';
import {
  fetchRequestView,
  isFetchRequest,
  nodeRequestView,
  type HeaderFallback,
  type NodeRequestLike,
} from '../lib/request-views.js';

export type { NodeRequestLike };

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
  readonly info?:
    | {
        readonly connectionParams?: ConnectionParams | null;
        /** The calls of the request, each with the procedure tRPC resolved for its path. */
        readonly calls?: readonly { readonly path: string; readonly procedure?: unknown }[];
      }
    | undefined;
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
  params: HeaderFallback,
): SecurityRequest {
  if (isFetchRequest(req)) return fetchRequestView(req, undefined, params);
  return nodeRequestView('raw' in req ? req.raw : req, params);
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
