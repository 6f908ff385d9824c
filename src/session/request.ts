import { ConfigurationError } from '../core/errors.js';
import type { SecurityRequest } from '../core/request.js';
import {
  fetchRequestView,
  isFetchRequest,
  isNodeRequest,
  nodeRequestView,
  type NodeRequestLike,
} from '../lib/request-views.js';

/** A request the session operations accept: a `SecurityRequest`, a node request or a Fetch `Request`. */
export type RequestLike = SecurityRequest | NodeRequestLike | Request;

/** The {@link SecurityRequest} of any accepted request. @internal */
export function toRequest(request: RequestLike): SecurityRequest {
  if (isFetchRequest(request)) return fetchRequestView(request);
  if (isNodeRequest(request)) return nodeRequestView(request);
  if (typeof (request as Partial<SecurityRequest> | null)?.header === 'function') return request;
  throw new ConfigurationError(
    'request',
    'must be a SecurityRequest, a node request or a Fetch Request',
  );
}
