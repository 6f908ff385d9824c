import { ConfigurationError } from '../core/errors.js';
import { findRequest, type FoundRequest } from '../http/find-request.js';
import type { NodeRequestLike } from '../http/request-views.js';

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
 * The request of a `createContext` call: a node request, a Fetch `Request`, or a
 * Fastify request's `raw` (and whatever else {@link findRequest} looks through).
 *
 * @throws ConfigurationError when `req` holds no request
 * @internal
 */
export function findContextRequest(req: ContextOptionsLike['req']): FoundRequest {
  const found = findRequest(req, { holders: true });
  if (found) return found;
  throw new ConfigurationError(
    'createTrpcContext',
    'found no request in opts.req: pass the options tRPC gives createContext',
  );
}
