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
        http: { status: throttled ? 429 : 503, headers: retryAfterHeaders(seconds) },
      },
    },
  );
}

/**
 * `{ 'retry-after': seconds }` as both servers read `extensions.http.headers`: a `Map`
 * (Apollo Server takes the head of an error only when its headers are one) with the
 * header as an own property too (GraphQL Yoga `Object.assign`s them).
 */
function retryAfterHeaders(seconds: string): Record<string, string> {
  const headers = new Map([['retry-after', seconds]]);
  Object.defineProperty(headers, 'retry-after', { value: seconds, enumerable: true });
  // Typed as the plain record GraphQL Yoga declares for `extensions.http.headers`.
  return headers as unknown as Record<string, string>;
}

/** What graphql-http answers when a context factory returns it: `[body, init]`. */
export type GraphQLHttpResponse = [
  body: string,
  init: { status: number; statusText: string; headers: Record<string, string> },
];

/**
 * graphql-http's `context` option from a context factory (`createGraphQLContext`'s,
 * or your own around it): a request refused for now — a login throttle or a store
 * down while authenticating, `TOO_MANY_REQUESTS` / `SERVICE_UNAVAILABLE` — is
 * answered with its status (429, 503), `Retry-After` and the error in `errors`.
 * graphql-http answers 500 to a context factory that throws; GraphQL Yoga and Apollo
 * Server read the status from the error themselves and need no wrapper.
 *
 * @example
 * ```ts
 * const security = createGraphQLContext({ authenticator });
 * const handler = createHandler({ schema, context: graphqlHttpContext((req) => security(req)) });
 * ```
 */
export function graphqlHttpContext<Req, Args extends unknown[], Context>(
  context: (req: Req, ...args: Args) => Context | Promise<Context>,
): (req: Req, ...args: Args) => Promise<Context | GraphQLHttpResponse> {
  return async (req, ...args) => {
    try {
      return await context(req, ...args);
    } catch (error) {
      const response = refusedForNow(error);
      if (response === undefined) throw error;
      return response;
    }
  };
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

function refusedForNow(error: unknown): GraphQLHttpResponse | undefined {
  if (!(error instanceof GraphQLError)) return undefined;
  const extensions: Readonly<Record<string, unknown>> = error.extensions;
  const http = extensions['http'] as { status?: unknown; headers?: unknown } | undefined;
  const status = http?.status;
  const title = typeof status === 'number' ? STATUS_TEXT[status] : undefined;
  if (typeof status !== 'number' || title === undefined) return undefined;
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  const retryAfter =
    http?.headers instanceof Map ? (http.headers.get('retry-after') as unknown) : undefined;
  if (typeof retryAfter === 'string') headers['retry-after'] = retryAfter;
  const body = JSON.stringify({
    errors: [{ message: error.message, extensions: { code: extensions['code'] } }],
  });
  return [body, { status, statusText: title, headers }];
}
