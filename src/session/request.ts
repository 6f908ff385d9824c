import { ConfigurationError } from '../core/errors.js';
import type { SecurityRequest } from '../core/request.js';
import { findRequest, viewOf } from '../http/find-request.js';
import type { NodeRequestLike } from '../http/request-views.js';

/** A request the session operations accept: a `SecurityRequest`, a node request or a Fetch `Request`. */
export type RequestLike = SecurityRequest | NodeRequestLike | Request;

/** The {@link SecurityRequest} of any accepted request. @internal */
export function toRequest(request: RequestLike): SecurityRequest {
  const found = findRequest(request, { holders: false });
  if (found) return viewOf(found);
  const view = request as Partial<SecurityRequest> | null;
  if (typeof view?.header === 'function') return view as SecurityRequest;
  throw new ConfigurationError(
    'request',
    'must be a SecurityRequest, a node request or a Fetch Request',
  );
}
