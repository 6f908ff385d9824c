import type { TRPCError } from '@trpc/server';
import { ConfigurationError, UnavailableError } from '../core/errors.js';

/**
 * The key under which `createTrpcContext` leaves the request's `WWW-Authenticate`
 * value on the context (a symbol: not part of the context's type, kept by object spread).
 *
 * @internal
 */
export const CHALLENGE: unique symbol = Symbol('portcullis.trpc.challenge');

/** The `WWW-Authenticate` value of each `UNAUTHORIZED` denial portcullis made. */
const challenges = new WeakMap<object, string>();

/** The challenge `createTrpcContext` left on a context, if any. @internal */
export function contextChallenge(ctx: unknown): string | undefined {
  if (typeof ctx !== 'object' || ctx === null) return undefined;
  const value = (ctx as { [CHALLENGE]?: unknown })[CHALLENGE];
  return typeof value === 'string' ? value : undefined;
}

/** Records the challenge of an `UNAUTHORIZED` denial. @internal */
export function noteChallenge(error: TRPCError, challenge: string | undefined): void {
  if (challenge !== undefined) challenges.set(error, challenge);
}

/** What tRPC passes to `responseMeta`, as far as portcullis reads it. */
export interface ResponseMetaOptionsLike {
  readonly errors: readonly unknown[];
}

/** What `responseMeta` returns, as far as portcullis writes it. */
export interface ResponseMetaLike {
  status?: number;
  headers?: Headers | Record<string, string | string[] | undefined>;
}

/**
 * A `responseMeta` for tRPC's HTTP adapters (standalone, node `http`, Express,
 * Fastify, Fetch) that adds `WWW-Authenticate` to a response carrying a portcullis
 * `UNAUTHORIZED` denial: the `challenges` given to `createTrpcContext`, and
 * `Bearer error="invalid_token", error_description="…"` when the request presented a
 * token that was refused (RFC 6750 §3), as the HTTP edge answers; and `Retry-After`
 * to a `SERVICE_UNAVAILABLE` answer (a deadline passed). Pass your own
 * `responseMeta` to have both: its headers are kept.
 *
 * @example
 * ```ts
 * import { securityResponseMeta } from 'portcullis/trpc';
 * createHTTPServer({ router, createContext, responseMeta: securityResponseMeta() });
 * ```
 */
export function securityResponseMeta<O extends ResponseMetaOptionsLike>(
  next?: (opts: O) => ResponseMetaLike,
): (opts: O) => ResponseMetaLike {
  if (next !== undefined && typeof next !== 'function') {
    throw new ConfigurationError(
      'responseMeta',
      'must be a function (opts) => { status, headers }',
    );
  }
  return (opts) => {
    const meta = next ? next(opts) : {};
    let challenge: string | undefined;
    for (const error of opts.errors) {
      challenge = typeof error === 'object' && error !== null ? challenges.get(error) : undefined;
      if (challenge !== undefined) break;
    }
    const retryAfter = retryAfterOf(opts.errors);
    if (challenge === undefined && retryAfter === undefined) return meta;
    const headers = new Headers(
      meta.headers instanceof Headers ? meta.headers : toEntries(meta.headers),
    );
    if (challenge !== undefined) headers.set('www-authenticate', challenge);
    if (retryAfter !== undefined) headers.set('retry-after', retryAfter);
    return { ...meta, headers };
  };
}

/** The `Retry-After` of a call that failed closed (`SERVICE_UNAVAILABLE` caused by an `UnavailableError`). */
function retryAfterOf(errors: readonly unknown[]): string | undefined {
  for (const error of errors) {
    const cause = error instanceof Error ? error.cause : undefined;
    if (cause instanceof UnavailableError) return String(cause.retryAfter);
  }
  return undefined;
}

function toEntries(headers: Record<string, string | string[] | undefined> | undefined) {
  const entries: [string, string][] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (Array.isArray(value)) for (const v of value) entries.push([name, v]);
    else if (typeof value === 'string') entries.push([name, value]);
  }
  return entries;
}

export { challengeOf, requireChallenges } from '../authorization/challenges.js';
