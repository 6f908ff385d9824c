import { TRPCError, initTRPC, type TRPCProcedureType } from '@trpc/server';
import { AuthenticatedUser } from '../core/authenticated-user.js';
import { SecurityContext } from '../core/context.js';
import {
  AccessDeniedError,
  AuthenticationRequiredError,
  TooManyRequestsError,
  UnavailableError,
} from '../core/errors.js';
import { summarize, type SecurityEvents } from '../core/events.js';
import { isPromiseLike } from '../lib/promise.js';
import { DEFAULTS, type GuardSettings } from './options.js';
import { contextRequest } from '../http/context-request.js';
import type { Rule } from './rule.js';
import { publishExplained } from '../authorization/method-rule.js';
import { bindToUser } from '../http/bind-to-user.js';
import type { Guard, OpenGuard, UserContext } from './types.js';
import { contextChallenge, noteChallenge } from './challenge.js';

/** The root whose `middleware()` builds the guards; its context is all a guard needs. */
const root = initTRPC.context<UserContext>().create({ isServer: true });

/** Every portcullis middleware function and its rule (`null` for `permitAll()`). @internal */
export const guardRules = new WeakMap<object, Rule | null>();

/** What a check needs of a middleware call. @internal */
export interface GuardCall {
  readonly ctx: unknown;
  readonly path: string;
  readonly input: unknown;
}

/** A guard middleware for `rule`: `UNAUTHORIZED` without a user, `FORBIDDEN` when the rule fails. @internal */
export function createGuard(rule: Rule, settings: GuardSettings): Guard {
  // The user a guard lets through is `ctx.user` itself (an AuthenticatedUser, checked by
  // `authorize`): `next()` passes the context on as it is, without the copy of it that
  // `next({ ctx })` makes (tRPC merges the two objects key by key).
  const guard = settings.securityContext
    ? root.middleware((opts) => {
        const proceed = (user: AuthenticatedUser) =>
          runAs(user, opts.type, () => opts.next(), true);
        // A synchronous denial throws here; tRPC turns it into the call's error.
        const user = authorize(rule, settings, opts);
        return user instanceof AuthenticatedUser ? proceed(user) : user.then(proceed);
      })
    : root.middleware((opts) => {
        const user = authorize(rule, settings, opts);
        return user instanceof AuthenticatedUser ? opts.next() : user.then(() => opts.next());
      });
  for (const fn of guard._middlewares) guardRules.set(fn, rule);
  return guard;
}

/** `permitAll()`: no check; fills the `SecurityContext` with the user or `null`. @internal */
export function createOpenGuard(settings: GuardSettings = DEFAULTS): OpenGuard {
  const guard = root.middleware((opts) => {
    const user = userOf(opts.ctx);
    return runAs(user, opts.type, () => nextWith(opts, user), settings.securityContext);
  });
  for (const fn of guard._middlewares) guardRules.set(fn, null);
  return guard;
}

/**
 * The rest of the call with `ctx.user` set to `user`: the context as it is when it
 * already holds that user (no copy of it), else a copy with `user` (anything but an
 * AuthenticatedUser in `ctx.user` becomes `null`).
 *
 * @internal
 */
export function nextWith<R>(
  opts: { readonly ctx: unknown; next(options?: { ctx: UserContext }): R },
  user: AuthenticatedUser | null,
): R {
  return (opts.ctx as Partial<UserContext> | null | undefined)?.user === user
    ? opts.next()
    : opts.next({ ctx: { user } });
}

/**
 * Checks a rule: the authenticated user, or the `TRPCError` of the denial thrown
 * (`UNAUTHORIZED` / `FORBIDDEN`, never an internal error: a failing check denies).
 *
 * @internal
 */
export function authorize(
  rule: Rule,
  settings: GuardSettings,
  call: GuardCall,
): AuthenticatedUser | Promise<AuthenticatedUser> {
  const user = userOf(call.ctx);
  if (user === null) throw denial(rule, settings, call, null);
  let passed: boolean | PromiseLike<boolean>;
  try {
    passed = rule.check(user, call.input);
  } catch {
    passed = false;
  }
  if (passed === true) return user;
  if (!isPromiseLike(passed)) throw denial(rule, settings, call, user);
  return Promise.resolve(passed).then(
    (ok) => {
      if (ok) return user;
      throw denial(rule, settings, call, user);
    },
    (error: unknown) => {
      // A custom function past its deadline: SERVICE_UNAVAILABLE (503), not a denial.
      if (error instanceof UnavailableError) throw unavailable(error);
      throw denial(rule, settings, call, user);
    },
  );
}

/**
 * The `TRPCError` of a request that failed closed because a dependency could not
 * answer (a deadline passed, a store is down): `SERVICE_UNAVAILABLE` (HTTP 503); or
 * that a throttle or rate limit refused: `TOO_MANY_REQUESTS` (429). The portcullis
 * error is its cause (its `retryAfter` becomes `Retry-After`); no detail in the message.
 *
 * @internal
 */
export function unavailable(error: UnavailableError): TRPCError {
  if (error instanceof TooManyRequestsError) {
    return new TRPCError({
      code: 'TOO_MANY_REQUESTS',
      message: 'Too many requests, try again later',
      cause: error,
    });
  }
  return new TRPCError({
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service is unavailable, try again later',
    cause: error,
  });
}

/** `ctx.user` when it is an {@link AuthenticatedUser}; anything else is anonymous. @internal */
export function userOf(ctx: unknown): AuthenticatedUser | null {
  const user = (ctx as Partial<UserContext> | null | undefined)?.user;
  return user instanceof AuthenticatedUser ? user : null;
}

/**
 * Runs the rest of the call with `user` in the `SecurityContext`; a subscription's
 * iterable is bound to it too, so each step of the stream sees the user. With
 * `securityContext` off, it only runs the rest of the call.
 *
 * @internal
 */
export function runAs<R extends { readonly ok: boolean }>(
  user: AuthenticatedUser | null,
  type: TRPCProcedureType,
  next: () => Promise<R>,
  securityContext: boolean,
): Promise<R> {
  if (!securityContext) return next();
  const result = SecurityContext.run(user, next);
  if (type !== 'subscription') return result;
  return result.then((r) => (r.ok && 'data' in r ? { ...r, data: bindToUser(r.data, user) } : r));
}

/** The error of a denial, after publishing its `access-denied` event. @internal */
export function denial(
  rule: Rule,
  settings: GuardSettings,
  call: GuardCall,
  user: AuthenticatedUser | null,
): TRPCError {
  const events = settings.events;
  try {
    if (events.hasListeners) publishDenial(events, rule, call, user, settings.debug);
  } catch {
    // A faulty custom publisher must not turn a denial into a server error.
  }
  const detail = settings.debug ? ` by ${rule.description}` : '';
  if (user === null) {
    const message = `Authentication is required${detail}`;
    const error = withoutStack(
      () =>
        new TRPCError({
          code: 'UNAUTHORIZED',
          message,
          cause: new AuthenticationRequiredError(message),
        }),
    );
    noteChallenge(error, contextChallenge(call.ctx));
    return error;
  }
  const message = `Access is denied${detail}`;
  return withoutStack(
    () =>
      new TRPCError({
        code: 'FORBIDDEN',
        message,
        cause: new AccessDeniedError(message, rule.description),
      }),
  );
}

/**
 * An error built without a stack trace, and with none to show: a denial is an expected
 * outcome, not a fault, and tRPC sends `error.stack` to clients outside production.
 *
 * @internal
 */
export function withoutStack<E extends Error>(create: () => E): E {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    const error = create();
    delete error.stack;
    if (error.cause instanceof Error) delete error.cause.stack;
    return error;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function publishDenial(
  events: SecurityEvents,
  rule: Rule,
  call: GuardCall,
  user: AuthenticatedUser | null,
  debug: boolean,
): void {
  const event = {
    type: 'access-denied',
    username: user?.username ?? null,
    rule: rule.description,
    request: summarize({
      method: 'TRPC',
      rawPath: call.path,
      clientAddress: contextRequest(call.ctx)?.clientAddress,
    }),
  } as const;
  if (!debug) {
    events.publish(event);
    return;
  }
  // Debug mode: the event carries the failing term, once it is explained (just after
  // the denial is thrown).
  const explain = rule.explain;
  publishExplained(events, event, rule.description, explain && (() => explain(user, call.input)));
}
