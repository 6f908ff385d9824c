import { initTRPC, type TRPCMiddlewareBuilder } from '@trpc/server';
import { ConfigurationError, UnavailableError } from '../core/errors.js';
import { consumeLimits } from '../lib/consume-limits.js';
import { contextRequest } from '../http/context-request.js';
import { RateLimit } from '../throttle/rate-limit.js';
import { unavailable, userOf } from './guard-middleware.js';
import type { UserContext } from './types.js';

/** The middleware of {@link rateLimited}: it changes nothing in the context. */
export type RateLimitMiddleware = TRPCMiddlewareBuilder<UserContext, object, object, unknown>;

const root = initTRPC.context<UserContext>().create({ isServer: true });

/**
 * A procedure middleware that counts each call against one or more rate limits
 * (see `rateLimit`), in order: past one, the call is refused with `TOO_MANY_REQUESTS`
 * (HTTP 429, and `Retry-After` with {@link securityResponseMeta}); a limit whose store
 * failed closed answers `SERVICE_UNAVAILABLE` (503). A `throttled` event is published.
 *
 * The key comes from the context {@link createTrpcContext} made: `by: 'user'`
 * reads `ctx.user` (the client address for an anonymous caller), `by: 'address'` the
 * request's client address (the forwarded headers too, with the limit's
 * `trustedProxies`). A call without a request (`createCaller`) has no address: it is
 * counted only under a user or a custom key.
 *
 * It is not a guard: the procedure still needs one (or `meta.auth`). Put it before the
 * guard so that refused calls count too, or after it to count only allowed ones.
 *
 * @throws ConfigurationError when something other than a `RateLimit` is given
 *
 * @example
 * ```ts
 * import { rateLimit } from 'portcullis';
 * import { authenticated, rateLimited } from 'portcullis/trpc';
 *
 * const searches = rateLimit({ name: 'search', window: '1m', max: 30, by: 'user' });
 * const search = t.procedure.use(rateLimited(searches)).use(authenticated())
 *   .input(z.string()).query(({ input }) => find(input));
 * ```
 */
export function rateLimited(...limits: readonly [RateLimit, ...RateLimit[]]): RateLimitMiddleware {
  if (limits.length === 0) {
    throw new ConfigurationError('rateLimited', 'takes at least one RateLimit');
  }
  for (const limit of limits) {
    if (!(limit instanceof RateLimit)) {
      throw new ConfigurationError(
        'limit',
        "must be a RateLimit, e.g. rateLimit({ window: '1m', max: 100 })",
      );
    }
  }
  const list = Object.freeze([...limits]);
  return root.middleware((opts) => {
    const counted = countCall(list, opts.ctx);
    return counted === undefined ? opts.next() : counted.then(() => opts.next());
  });
}

/**
 * Counts a call against limits: `undefined` when done synchronously, else a promise;
 * a refusal is thrown (or rejected) as its `TRPCError`. @internal
 */
export function countCall(limits: readonly RateLimit[], ctx: unknown): Promise<void> | undefined {
  const subject = { request: contextRequest(ctx), user: userOf(ctx) };
  let counted: Promise<void> | undefined;
  try {
    counted = consumeLimits(limits, subject);
  } catch (error) {
    throw refusal(error);
  }
  return counted?.catch((error: unknown) => {
    throw refusal(error);
  });
}

/**
 * The limits of `meta.rateLimit` (a `RateLimit` or a list of them), or `undefined`.
 * @throws ConfigurationError for anything else
 * @internal
 */
export function metaRateLimits(value: unknown): readonly RateLimit[] | undefined {
  if (value === undefined) return undefined;
  const list: readonly unknown[] = Array.isArray(value) ? value : [value];
  if (list.length === 0 || !list.every((limit) => limit instanceof RateLimit)) {
    throw new ConfigurationError(
      'meta.rateLimit',
      'must be a RateLimit or a non-empty list of them',
    );
  }
  return list;
}

/** `TOO_MANY_REQUESTS` or `SERVICE_UNAVAILABLE` for a limit's refusal; anything else as it is. */
function refusal(error: unknown): unknown {
  return error instanceof UnavailableError ? unavailable(error) : error;
}
