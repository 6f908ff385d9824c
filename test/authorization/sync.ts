import type { AuthenticatedUser, AuthorizationDecision, SecurityRequest } from '../../src/index.js';
import type { RequestMatcherAuthorizer } from '../../src/authorization/index.js';

/** Runs a request matcher whose rules are all synchronous; fails if it answered a promise. */
export function authorizeSync(
  authorizer: RequestMatcherAuthorizer,
  user: AuthenticatedUser | null,
  request: SecurityRequest,
): AuthorizationDecision {
  const decision = authorizer.authorize(user, request);
  if (decision instanceof Promise) throw new Error('expected a synchronous decision');
  return decision;
}
