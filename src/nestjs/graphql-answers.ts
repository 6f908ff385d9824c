import type { GraphQLResolveInfo } from 'graphql';
import { TooManyRequestsError, type UnavailableError } from '../core/errors.js';
import type { SecurityResponse } from '../core/security.js';
import { headerMap } from '../http/challenge-headers.js';
import type { Answers } from './answers.js';

type GraphQL = typeof import('graphql');

let loaded: GraphQL | undefined;
let loading: Promise<GraphQL> | undefined;

/**
 * `graphql`, loaded the first time a resolver is guarded (an application without
 * GraphQL never loads it): synchronously known after that.
 *
 * @internal
 */
export function graphqlModule(): GraphQL | Promise<GraphQL> {
  if (loaded !== undefined) return loaded;
  loading ??= import('graphql').then((module) => (loaded = module));
  return loading;
}

/** The extension codes of the statuses the pipeline answers, as the GraphQL directives use them. */
const CODES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * The answers of a resolver: `GraphQLError`s located at the field, with
 * `extensions.code` (`UNAUTHENTICATED`, `FORBIDDEN`, …) and `extensions.http` (the
 * status, and `WWW-Authenticate` / `Retry-After`), as the GraphQL directives answer.
 *
 * @internal
 */
export function graphqlAnswers(graphql: GraphQL, info: GraphQLResolveInfo | undefined): Answers {
  const error = (
    message: string,
    status: number,
    headers: Readonly<Record<string, string>> = {},
  ): Error => {
    const http =
      Object.keys(headers).length === 0 ? { status } : { status, headers: headerMap(headers) };
    const located =
      info === undefined
        ? {}
        : { nodes: info.fieldNodes, path: graphql.responsePathAsArray(info.path) };
    return new graphql.GraphQLError(message, {
      ...located,
      extensions: { code: CODES[status] ?? 'INTERNAL_SERVER_ERROR', http },
    });
  };
  return {
    refuse(answer: SecurityResponse) {
      const headers: Record<string, string> = {};
      for (const name of ['www-authenticate', 'retry-after', 'location']) {
        const value = answer.headers[name];
        if (value !== undefined) headers[name] = value;
      }
      const message =
        answer.status === 401
          ? 'Authentication is required'
          : answer.status === 403
            ? 'Access is denied'
            : answer.status === 400
              ? 'Bad request'
              : 'The service is unavailable, try again later';
      return error(message, answer.status, headers);
    },
    unauthenticated: (message, challenge) =>
      error(message, 401, challenge === undefined ? {} : { 'www-authenticate': challenge }),
    forbidden: (message) => error(message, 403),
    unavailable: (cause: UnavailableError) =>
      cause instanceof TooManyRequestsError
        ? error('Too many requests, try again later', 429, {
            'retry-after': String(cause.retryAfter),
          })
        : error('The service is unavailable, try again later', 503, {
            'retry-after': String(cause.retryAfter),
          }),
  };
}
