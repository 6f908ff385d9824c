import { GraphQLError, type ASTNode } from 'graphql';
import { TooManyRequestsError, type UnavailableError } from '../core/errors.js';

/**
 * The `GraphQLError` of a request or field that failed closed because a dependency
 * could not answer (a deadline passed, a store is down): `extensions.code`
 * `SERVICE_UNAVAILABLE`, `extensions.http` 503 with `Retry-After`; refused by a
 * throttle or rate limit (a `TooManyRequestsError`): `TOO_MANY_REQUESTS`, 429. The message
 * says nothing of what timed out. It has no `originalError`: servers that mask errors
 * (GraphQL Yoga, envelop's `useMaskedErrors`) mask a `GraphQLError` wrapping another
 * error as `INTERNAL_SERVER_ERROR`, which this answer is not.
 *
 * @internal
 */
export function unavailableError(
  error: UnavailableError,
  nodes?: readonly ASTNode[],
  path?: readonly (string | number)[],
): GraphQLError {
  const seconds = String(error.retryAfter);
  const throttled = error instanceof TooManyRequestsError;
  return new GraphQLError(
    throttled
      ? 'Too many requests, try again later'
      : 'The service is unavailable, try again later',
    {
      ...(nodes === undefined ? {} : { nodes }),
      ...(path === undefined ? {} : { path }),
      extensions: {
        code: throttled ? 'TOO_MANY_REQUESTS' : 'SERVICE_UNAVAILABLE',
        http: { status: throttled ? 429 : 503, headers: { 'retry-after': seconds } },
      },
    },
  );
}
