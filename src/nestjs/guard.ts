import type { CanActivate, ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { GraphQLResolveInfo } from 'graphql';
import { challengeOf } from '../authorization/challenges.js';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { UnavailableError } from '../core/errors.js';
import { summarize } from '../core/events.js';
import { publishExplained } from '../authorization/method-rule.js';
import { Outcome } from '../core/outcome.js';
import type { SecurityRequest } from '../core/request.js';
import { recordedAuthentication } from '../http/authentication-record.js';
import { isPromiseLike } from '../lib/promise.js';
import type { SecurityOutcome } from '../transform/index.js';
import type { Answers } from './answers.js';
import { graphqlAnswers, graphqlModule } from './graphql-answers.js';
import { httpAnswers } from './http-answers.js';
import type { NestSettings } from './options.js';
import {
  exposeUser,
  platformRequestOf,
  recordUser,
  recordedUser,
  securityView,
} from './request.js';
import { HandlerRules, type HandlerRule } from './rules.js';

/** What the guard needs of one call of a handler or resolver. */
interface Call {
  /** The platform's request, where the user is recorded. */
  readonly request: object;
  /** The request's view, made when first needed (`undefined`: no node request in it). */
  readonly view: () => SecurityRequest | undefined;
  readonly rule: HandlerRule;
  /** The expression's `args`. */
  readonly args: () => unknown;
  readonly answers: Answers;
}

/**
 * The module's global guard: the rule of the handler or resolver, for the user the
 * module's middleware found (or, for a request the middleware did not see, after
 * running the same pipeline itself). Denials are Nest's HTTP exceptions for controllers
 * (`UnauthorizedException` with `WWW-Authenticate`, `ForbiddenException`, …, answered
 * by Nest's exception filters), `GraphQLError`s for resolvers.
 *
 * @internal
 */
export class PortcullisGuard implements CanActivate {
  readonly #settings: NestSettings;
  readonly #rules: HandlerRules;
  readonly #reflector: Reflector;

  constructor(settings: NestSettings, rules: HandlerRules, reflector: Reflector) {
    this.#settings = settings;
    this.#rules = rules;
    this.#reflector = reflector;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const controller = context.getClass();
    const handler = context.getHandler();
    const rule = this.#rules.ruleOf(
      HandlerRules.metadataOf(this.#reflector, handler, controller),
      () => `${controller.name}.${handler.name}`,
    );
    const type = context.getType<string>();
    const request = platformRequestOf(context);
    if (type === 'http' && request !== undefined) {
      const answers = httpAnswers(context.switchToHttp().getResponse());
      return this.#run(request, rule, () => argsOf(request), answers);
    }
    if (type === 'graphql') {
      const info = context.getArgByIndex<GraphQLResolveInfo | undefined>(3);
      const args = () => context.getArgByIndex<unknown>(1);
      const graphql = graphqlModule();
      const run = (answers: Answers): boolean | Promise<boolean> =>
        request === undefined
          ? this.#withoutRequest(rule, answers)
          : this.#run(request, rule, args, answers);
      return isPromiseLike(graphql)
        ? graphql.then((module) => run(graphqlAnswers(module, info)))
        : run(graphqlAnswers(graphql, info));
    }
    // Another transport (microservices, WebSockets): no request to authenticate, so
    // only a @PermitAll() handler runs.
    return this.#withoutRequest(rule, httpAnswers(undefined));
  }

  /** A call without an HTTP request: anonymous. */
  #withoutRequest(rule: HandlerRule, answers: Answers): boolean {
    if (rule === null) return true;
    throw answers.unauthenticated('Authentication is required', undefined);
  }

  #run(
    request: object,
    rule: HandlerRule,
    args: () => unknown,
    answers: Answers,
  ): boolean | Promise<boolean> {
    let view: SecurityRequest | undefined | null = null;
    const viewOnce = () => (view === null ? (view = securityView(request)) : view);
    const call: Call = { request, view: viewOnce, rule, args, answers };
    // The middleware ran the pipeline (the resolvers of one GraphQL request share it too).
    const known = recordedUser(request);
    if (known !== undefined) {
      exposeUser(request, known);
      return this.#check(known, call);
    }
    const found = viewOnce();
    if (found === undefined) throw answers.refuse(BAD_REQUEST);
    const outcome = this.#settings.transform.handle(found);
    return isPromiseLike(outcome)
      ? Promise.resolve(outcome).then((o) => this.#decide(o, call))
      : this.#decide(outcome, call);
  }

  #decide(outcome: SecurityOutcome, call: Call): boolean | Promise<boolean> {
    if (!outcome.proceed) throw call.answers.refuse(outcome.response);
    recordUser(call.request, outcome.user);
    return this.#check(outcome.user, call);
  }

  #check(user: AuthenticatedUser | null, call: Call): boolean | Promise<boolean> {
    const rule = call.rule;
    if (rule === null) return true;
    if (user === null) throw this.#denial(rule, call, null);
    let passed: boolean | PromiseLike<boolean>;
    try {
      passed = rule.check(user, rule.usesArgs ? call.args() : undefined);
    } catch {
      passed = false;
    }
    if (passed === true) return true;
    if (!isPromiseLike(passed)) throw this.#denial(rule, call, user);
    return Promise.resolve(passed).then(
      (ok) => {
        if (ok) return true;
        throw this.#denial(rule, call, user);
      },
      (error: unknown) => {
        if (error instanceof UnavailableError) throw call.answers.unavailable(error);
        throw this.#denial(rule, call, user);
      },
    );
  }

  /** The error of a denial (401 with its challenge, or 403), after its `access-denied` event. */
  #denial(rule: Exclude<HandlerRule, null>, call: Call, user: AuthenticatedUser | null): Error {
    const { events, debug, challenges, authenticator } = this.#settings;
    const view = call.view();
    try {
      if (events.hasListeners) {
        const event = {
          type: 'access-denied',
          username: user?.username ?? null,
          rule: rule.description,
          request: summarize(view ?? UNKNOWN_REQUEST),
        } as const;
        if (debug) {
          const explain = rule.explain;
          publishExplained(
            events,
            event,
            rule.description,
            explain && (() => explain(user, rule.usesArgs ? call.args() : undefined)),
          );
        } else events.publish(event);
      }
    } catch {
      // A faulty custom publisher must not turn a denial into a server error.
    }
    const detail = debug ? ` by ${rule.description}` : '';
    if (user !== null) return call.answers.forbidden(`Access is denied${detail}`);
    const authentication = (view && recordedAuthentication(view, authenticator)) ?? ANONYMOUS;
    // A request the authenticator refused outright (a CSRF check): 403, as at the HTTP edge.
    if (authentication.kind === 'refused')
      return call.answers.forbidden(`Access is denied${detail}`);
    return call.answers.unauthenticated(
      `Authentication is required${detail}`,
      challengeOf(challenges, authentication),
    );
  }
}

const ANONYMOUS = Outcome.anonymous();

/** What an event says of a request without a node request in it. */
const UNKNOWN_REQUEST = { method: 'UNKNOWN', rawPath: '', clientAddress: undefined };

/** A platform request that holds no node request: refused as malformed. */
const BAD_REQUEST = Object.freeze({ status: 400, headers: {}, body: 'Bad Request' });

/**
 * Thrown when a name of `args` comes with different values from two of the query, the
 * body and the route params: the rule could read one while the handler reads the
 * other, so the rule denies (the guard turns any failure of a check into a denial).
 */
class AmbiguousArgument extends Error {
  constructor(name: string) {
    super(`args.${name} has different values in the query, the body or the route params`);
  }
}

/**
 * A handler's `args`: the query, the body when it is an object, and the route params
 * in one object. A name found in two of them with different values is refused (an
 * {@link AmbiguousArgument}, hence a denial): otherwise `?author=victim` with the body
 * `{"author": "me"}` would pass `args.author == principal.username` for a handler that
 * reads `@Query('author')`.
 */
function argsOf(request: object): Record<string, unknown> {
  const { query, body, params } = request as { query?: unknown; body?: unknown; params?: unknown };
  // No prototype: a `__proto__` name is a name like any other.
  const args = Object.create(null) as Record<string, unknown>;
  for (const source of [asRecord(query), asRecord(body), asRecord(params)]) {
    if (source === undefined) continue;
    for (const [name, value] of Object.entries(source)) {
      if (Object.hasOwn(args, name) && !sameValue(args[name], value)) {
        throw new AmbiguousArgument(name);
      }
      args[name] = value;
    }
  }
  return args;
}

/** The same primitive, or the same JSON (a query's `a[b]=1` and a body's `{ a: { b: '1' } }`). */
function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !ArrayBuffer.isView(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
