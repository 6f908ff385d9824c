import type { UnavailableError } from '../core/errors.js';
import type { SecurityResponse } from '../core/security.js';

/**
 * How a transport answers the guard's decisions: Nest's HTTP exceptions for a
 * controller, GraphQL errors for a resolver.
 *
 * @internal
 */
export interface Answers {
  /** The pipeline's own answer (the firewall's 400, URL rules' 401/403/redirect, 503). */
  refuse(response: SecurityResponse): Error;
  /** An anonymous caller, refused by the handler's rule. */
  unauthenticated(message: string, challenge: string | undefined): Error;
  /** An authenticated caller (or a refused request), refused by the handler's rule. */
  forbidden(message: string): Error;
  /** A custom function past its deadline, a rate limit: 503 or 429 with `Retry-After`. */
  unavailable(error: UnavailableError): Error;
}
