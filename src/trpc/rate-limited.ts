import { initTRPC, type TRPCMiddlewareBuilder } from '@trpc/server';
import { ConfigurationError, UnavailableError } from '../core/errors.js';
import { consumeLimits } from '../lib/consume-limits.js';
import { contextRequest } from '../lib/context-request.js';
import { RateLimit } from '../throttle/rate-limit.js';
import { unavailable, userOf } from './guard.js';
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
 * The key comes from the context {@link createSecurityContext} made: `by: 'user'`
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
    const subject = { request: contextRequest(opts.ctx), user: userOf(opts.ctx) };
    let counted: Promise<void> | undefined;
    try {
      counted = consumeLimits(list, subject);
    } catch (error) {
      throw refusal(error);
    }
    if (counted === undefined) return opts.next();
    return counted.then(
      () => opts.next(),
      (error: unknown) => {
        throw refusal(error);
      },
    );
  });
}

/** `TOO_MANY_REQUESTS` or `SERVICE_UNAVAILABLE` for a limit's refusal; anything else as it is. */
function refusal(error: unknown): unknown {
  return error instanceof UnavailableError ? unavailable(error) : error;
}
