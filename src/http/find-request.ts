import type { SecurityRequest } from '../core/request.js';
import {
  fetchRequestView,
  isFetchRequest,
  isNodeRequest,
  nodeRequestView,
  type HeaderFallback,
  type NodeRequestLike,
} from './request-views.js';

/**
 * The request an adapter or a context factory was handed, found: a node request or a
 * Fetch `Request`, and, for graphql-ws's context, the object carrying its
 * `connectionParams`.
 *
 * @internal
 */
export type FoundRequest =
  | { readonly kind: 'node'; readonly request: NodeRequestLike; readonly params?: object }
  | { readonly kind: 'fetch'; readonly request: Request };

/** How far {@link findRequest} looks. @internal */
export interface FindRequestOptions {
  /**
   * Look into holders: `req` (Apollo Server, Express), `raw` (graphql-http),
   * `request` (GraphQL Yoga) and graphql-ws's `extra.request`, three holders deep.
   * Without it only a node request, a Fastify request or a Fetch `Request` is found.
   */
  readonly holders: boolean;
}

/**
 * Which kind of request is this? A Fetch `Request`; a Fastify request (its node
 * request is `raw`); a node request; or, with `holders`, an object holding one.
 * `undefined` when none is found.
 *
 * @internal
 */
export function findRequest(input: unknown, options: FindRequestOptions): FoundRequest | undefined {
  return search(input, options.holders ? HOLDER_DEPTH : 0);
}

/** Holders within holders looked into: `{ req: { raw: { request } } }` at most. */
const HOLDER_DEPTH = 3;

function search(input: unknown, depth: number): FoundRequest | undefined {
  if (isFetchRequest(input)) return { kind: 'fetch', request: input };
  if (isNodeRequest(input)) {
    // A Fastify request looks like a node one; its `raw` is the request the client
    // sent (the URL before any prefix rewrite, every header line).
    const raw = (input as { raw?: unknown }).raw;
    return { kind: 'node', request: isNodeRequest(raw) ? raw : input };
  }
  if (depth === 0 || typeof input !== 'object' || input === null) return undefined;
  const holder = input as {
    readonly req?: unknown;
    readonly raw?: unknown;
    readonly request?: unknown;
    readonly extra?: unknown;
  };
  const extra = holder.extra as { request?: unknown } | null | undefined;
  if (typeof extra === 'object' && extra !== null && isNodeRequest(extra.request)) {
    // graphql-ws: the upgrade request, and the credential in connectionParams.
    return { kind: 'node', request: extra.request, params: holder };
  }
  for (const key of ['req', 'raw', 'request'] as const) {
    const inner = holder[key];
    if (inner !== undefined && inner !== input) {
      const found = search(inner, depth - 1);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The {@link SecurityRequest} view of a found request, with header `fallback`s (the
 * connection parameters read as headers) and, for a node request, whether it came
 * over TLS when the framework knows better than the socket (Fastify's `protocol`).
 *
 * @internal
 */
export function viewOf(
  found: FoundRequest,
  fallback?: HeaderFallback,
  secure?: boolean,
): SecurityRequest {
  if (found.kind === 'fetch') return fetchRequestView(found.request, undefined, fallback);
  return secure === undefined
    ? nodeRequestView(found.request, fallback)
    : nodeRequestView(found.request, fallback, secure);
}

/** Whether a found request is a WebSocket upgrade. @internal */
export function isWebSocketUpgrade(found: FoundRequest): boolean {
  const upgrade =
    found.kind === 'fetch' ? found.request.headers.get('upgrade') : found.request.headers.upgrade;
  return typeof upgrade === 'string' && upgrade.toLowerCase() === 'websocket';
}
