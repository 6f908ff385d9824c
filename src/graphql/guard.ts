import {
  GraphQLError,
  responsePathAsArray,
  type ASTNode,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
} from 'graphql';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { SecurityContext } from '../core/context.js';
import { UnavailableError } from '../core/errors.js';
import { publishExplained } from '../authorization/method-rule.js';
import { summarize } from '../core/events.js';
import { bindToUser } from '../http/bind-to-user.js';
import { isPromiseLike } from '../lib/promise.js';
import type { FieldRule } from './analyze.js';
import { contextRequest } from '../http/context-request.js';
import type { GraphQLDenial, Settings } from './options.js';
import { challengeHeaders, contextChallenge } from './challenge.js';
import { unavailableError } from './unavailable.js';

type Resolver = GraphQLFieldResolver<unknown, unknown, Record<string, unknown>>;

/**
 * Wraps a field's resolver (or `subscribe`) in its rule: the resolver runs only
 * when the user passes, with the user in the `SecurityContext`. A synchronous rule
 * answers synchronously (no promise per field); a denial throws the field's
 * `GraphQLError`, so the executor nulls that field and the rest still resolves.
 *
 * @internal
 */
export function guardResolver(
  rule: FieldRule,
  resolve: Resolver,
  settings: Settings,
  subscribe = false,
): Resolver {
  const userOf = settings.userOf;
  const evaluate = rule.expression.evaluate as (
    user: AuthenticatedUser | null,
    args: unknown,
  ) => boolean | Promise<boolean>;

  // With `securityContext` off the resolver runs as it is: the context carries the user.
  const run = settings.securityContext
    ? (
        user: AuthenticatedUser | null,
        source: unknown,
        args: Record<string, unknown>,
        context: unknown,
        info: GraphQLResolveInfo,
      ): unknown => runAs(subscribe, user, resolve, source, args, context, info)
    : (
        _user: AuthenticatedUser | null,
        source: unknown,
        args: Record<string, unknown>,
        context: unknown,
        info: GraphQLResolveInfo,
      ): unknown => resolve(source, args, context, info);

  const proceed = (
    user: AuthenticatedUser | null,
    source: unknown,
    args: Record<string, unknown>,
    context: unknown,
    info: GraphQLResolveInfo,
  ): unknown => {
    const passed = evaluate(user, args);
    if (passed === true) return run(user, source, args, context, info);
    if (passed === false) throw fieldDenial(rule, settings, user, context, info, args);
    return passed.then((ok) => {
      if (!ok) throw fieldDenial(rule, settings, user, context, info, args);
      return run(user, source, args, context, info);
    }, unavailableOr(info));
  };

  return (source, args, context, info) => {
    const user = userOf(context);
    if (isPromiseLike(user)) {
      return user.then((u) => proceed(u, source, args, context, info));
    }
    return proceed(user, source, args, context, info);
  };
}

/**
 * Runs a resolver with the user in the `SecurityContext`; for `subscribe`, its event
 * stream is bound to the user too: the server pulls events later, outside this call.
 */
function runAs(
  subscribe: boolean,
  user: AuthenticatedUser | null,
  resolve: Resolver,
  source: unknown,
  args: Record<string, unknown>,
  context: unknown,
  info: GraphQLResolveInfo,
): unknown {
  if (!subscribe) {
    // The HTTP adapters (or an earlier field) may have filled it already.
    if (SecurityContext.getUser() === user) return resolve(source, args, context, info);
    return SecurityContext.run(user, () => resolve(source, args, context, info));
  }
  const stream = SecurityContext.run(user, () => resolve(source, args, context, info));
  if (isPromiseLike(stream)) return Promise.resolve(stream).then((s) => bindToUser(s, user));
  return bindToUser(stream, user);
}

/**
 * The rejection handler of an asynchronous rule: an `UnavailableError` (a custom
 * function past its deadline) becomes the field's `SERVICE_UNAVAILABLE` error;
 * anything else is passed on.
 */
function unavailableOr(info: GraphQLResolveInfo): (error: unknown) => never {
  return (error) => {
    if (error instanceof UnavailableError) {
      throw unavailableError(error, info.fieldNodes, responsePathAsArray(info.path));
    }
    throw error;
  };
}

/** The denial of a resolved field, at its path. */
function fieldDenial(
  rule: FieldRule,
  settings: Settings,
  user: AuthenticatedUser | null,
  context: unknown,
  info: GraphQLResolveInfo,
  args: Record<string, unknown>,
): Error {
  return denial(
    rule,
    settings,
    user,
    context,
    responsePathAsArray(info.path),
    info.fieldNodes,
    args,
  );
}

/**
 * The error of a denial (`UNAUTHENTICATED` / 401 for an anonymous caller,
 * `FORBIDDEN` / 403 otherwise), after publishing its `access-denied` event.
 *
 * @internal
 */
export function denial(
  rule: FieldRule,
  settings: Settings,
  user: AuthenticatedUser | null,
  context: unknown,
  path: readonly (string | number)[],
  nodes: readonly ASTNode[],
  args?: unknown,
): Error {
  const events = settings.events;
  try {
    if (events.hasListeners) {
      const event = {
        type: 'access-denied',
        username: user?.username ?? null,
        rule: `${rule.coordinate} → ${rule.expression.source}`,
        request: summarize({
          method: 'GRAPHQL',
          rawPath: rule.coordinate,
          clientAddress: contextRequest(context)?.clientAddress,
        }),
      } as const;
      if (settings.debug) {
        const { expression } = rule;
        publishExplained(
          events,
          event,
          expression.source,
          typeof expression.explain === 'function'
            ? () => expression.explain(user, args).then((explained) => explained.term)
            : undefined,
        );
      } else events.publish(event);
    }
  } catch {
    // A faulty custom publisher must not turn a denial into a server error.
  }
  const anonymous = user === null;
  const detail = settings.debug ? ` by ${rule.expression.source}` : '';
  const denied: GraphQLDenial = {
    code: anonymous ? 'UNAUTHENTICATED' : 'FORBIDDEN',
    status: anonymous ? 401 : 403,
    coordinate: rule.coordinate,
    rule: rule.expression.source,
    path,
    message: anonymous ? `Authentication is required${detail}` : `Access is denied${detail}`,
  };
  if (settings.createError) {
    try {
      const custom = settings.createError(denied);
      if (custom instanceof Error) return custom;
    } catch {
      // Fall back to the default error: a denial stays a denial.
    }
  }
  // Built located (nodes and path), so graphql-js uses it as it is instead of wrapping
  // it in a second error; and without a stack, which would only point into the
  // executor: a denial is an expected outcome, and aliasing a protected field many
  // times must not make each copy cost a stack capture.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const challenge = anonymous ? contextChallenge(context) : undefined;
  const http =
    challenge === undefined
      ? { status: denied.status }
      : { status: denied.status, headers: challengeHeaders(challenge) };
  try {
    const error = new GraphQLError(denied.message, {
      nodes,
      path,
      extensions: { code: denied.code, http },
    });
    delete error.stack;
    return error;
  } finally {
    Error.stackTraceLimit = limit;
  }
}
