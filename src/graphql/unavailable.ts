import { GraphQLError, type ASTNode } from 'graphql';
import type { UnavailableError } from '../core/errors.js';

/**
 * The `GraphQLError` of a request or field that failed closed because a dependency
 * could not answer (a deadline passed, a store is down): `extensions.code`
 * `SERVICE_UNAVAILABLE`, `extensions.http` 503 with `Retry-After`. The portcullis
 * error is its `originalError`; the message says nothing of what timed out.
 *
 * @internal
 */
export function unavailableError(
  error: UnavailableError,
  nodes?: readonly ASTNode[],
  path?: readonly (string | number)[],
): GraphQLError {
  const seconds = String(error.retryAfter);
  return new GraphQLError('The service is unavailable, try again later', {
    ...(nodes === undefined ? {} : { nodes }),
    ...(path === undefined ? {} : { path }),
    originalError: error,
    extensions: {
      code: 'SERVICE_UNAVAILABLE',
      http: { status: 503, headers: { 'retry-after': seconds } },
    },
  });
}
