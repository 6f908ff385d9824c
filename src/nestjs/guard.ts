import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  ServiceUnavailableException,
  UnauthorizedException,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { Observable } from 'rxjs';
import { challengeOf } from '../authorization/challenges.js';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { SecurityContext } from '../core/context.js';
import { TooManyRequestsError, UnavailableError } from '../core/errors.js';
import { summarize } from '../core/events.js';
import { Outcome } from '../core/outcome.js';
import type { SecurityRequest } from '../core/request.js';
import type { SecurityResponse } from '../core/security.js';
import { recordedAuthentication } from '../http/authentication-record.js';
import { findRequest, viewOf } from '../http/find-request.js';
import { isPromiseLike } from '../lib/promise.js';
import type { SecurityOutcome } from '../transform/index.js';
import type { NestSettings } from './options.js';
import { httpRequestOf, recordUser, requestUser } from './request.js';
import { HandlerRules, type HandlerRule } from './rules.js';

/** What the guard needs of one HTTP request. */
interface Call {
  readonly request: object;
  readonly response: unknown;
  readonly view: SecurityRequest;
  readonly rule: HandlerRule;
}

/**
 * The module's global guard: the pipeline of the HTTP adapters (firewall,
 * authentication, the URL rules when given), then the handler's rule. Denials are
 * Nest's exceptions (`UnauthorizedException` with `WWW-Authenticate`,
 * `ForbiddenException`, …), answered by Nest's exception filters.
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
    const request = httpRequestOf(context);
    if (request === undefined) {
      // Not an HTTP call (GraphQL, microservices, WebSockets): no request to
      // authenticate yet, so only a @PermitAll() handler runs.
      if (rule === null) return true;
      throw new ForbiddenException('Access is denied');
    }
    const found = findRequest(request, { holders: false });
    if (found === undefined) throw new BadRequestException();
    const protocol = (request as { protocol?: unknown }).protocol;
    const view =
      typeof protocol === 'string' ? viewOf(found, undefined, protocol === 'https') : viewOf(found);
    const call: Call = { request, response: context.switchToHttp().getResponse(), view, rule };
    const outcome = this.#settings.transform.handle(view);
    return isPromiseLike(outcome)
      ? Promise.resolve(outcome).then((o) => this.#decide(o, call))
      : this.#decide(outcome, call);
  }

  #decide(outcome: SecurityOutcome, call: Call): boolean | Promise<boolean> {
    if (!outcome.proceed) throw exceptionOf(outcome.response, call.response);
    const user = outcome.user;
    recordUser(call.request, user);
    const rule = call.rule;
    if (rule === null) return true;
    if (user === null) throw this.#denial(rule, call, null);
    let passed: boolean | PromiseLike<boolean>;
    try {
      passed = rule.check(user, rule.usesArgs ? argsOf(call.request) : undefined);
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
        if (error instanceof UnavailableError) throw unavailable(error, call.response);
        throw this.#denial(rule, call, user);
      },
    );
  }

  /** The exception of a denial (401 with its challenge, or 403), after its `access-denied` event. */
  #denial(
    rule: Exclude<HandlerRule, null>,
    call: Call,
    user: AuthenticatedUser | null,
  ): HttpException {
    const { events, debug, challenges, authenticator } = this.#settings;
    try {
      if (events.hasListeners) {
        events.publish({
          type: 'access-denied',
          username: user?.username ?? null,
          rule: rule.description,
          request: summarize(call.view),
        });
      }
    } catch {
      // A faulty custom publisher must not turn a denial into a server error.
    }
    const detail = debug ? ` by ${rule.description}` : '';
    if (user !== null) return new ForbiddenException(`Access is denied${detail}`);
    const authentication = recordedAuthentication(call.view, authenticator) ?? ANONYMOUS;
    // A request the authenticator refused outright (a CSRF check): 403, as at the HTTP edge.
    if (authentication.kind === 'refused')
      return new ForbiddenException(`Access is denied${detail}`);
    const challenge = challengeOf(challenges, authentication);
    if (challenge !== undefined) setHeader(call.response, 'www-authenticate', challenge);
    return new UnauthorizedException(`Authentication is required${detail}`);
  }
}

const ANONYMOUS = Outcome.anonymous();

/**
 * Runs the handler (and its pipes) with the request's user in the
 * `SecurityContext`, for everything it awaits.
 *
 * @internal
 */
export class SecurityContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (httpRequestOf(context) === undefined) return next.handle();
    const user = requestUser(context);
    return new Observable((subscriber) =>
      SecurityContext.run(user, () => next.handle().subscribe(subscriber)),
    );
  }
}

/**
 * The handler's `args`: the query, the body when it is an object, the route params,
 * each overriding the one before.
 */
function argsOf(request: object): Record<string, unknown> {
  const { query, body, params } = request as { query?: unknown; body?: unknown; params?: unknown };
  return { ...asRecord(query), ...asRecord(body), ...asRecord(params) };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !ArrayBuffer.isView(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Nest's exception for a response of the pipeline (400, 401, 403, a redirect, 429, 503), its headers set. */
function exceptionOf(answer: SecurityResponse, response: unknown): HttpException {
  for (const [name, value] of Object.entries(answer.headers)) {
    // Nest's exception filter writes its own body, with its own type and length.
    if (name !== 'content-type' && name !== 'content-length') setHeader(response, name, value);
  }
  if (answer.cookies !== undefined && answer.cookies.length > 0) {
    setHeader(response, 'set-cookie', [...answer.cookies]);
  }
  switch (answer.status) {
    case 400:
      return new BadRequestException();
    case 401:
      return new UnauthorizedException('Authentication is required');
    case 403:
      return new ForbiddenException('Access is denied');
    case 503:
      return new ServiceUnavailableException('The service is unavailable, try again later');
    default:
      return new HttpException(
        answer.status === 429
          ? 'Too many requests, try again later'
          : answer.status >= 300 && answer.status < 400
            ? 'Redirect'
            : 'Error',
        answer.status,
      );
  }
}

/** A custom function past its deadline, a rate limit: 503 or 429 with `Retry-After`. */
function unavailable(error: UnavailableError, response: unknown): HttpException {
  setHeader(response, 'retry-after', String(error.retryAfter));
  return error instanceof TooManyRequestsError
    ? new HttpException('Too many requests, try again later', 429)
    : new ServiceUnavailableException('The service is unavailable, try again later');
}

/** Sets a header on Express's `res` or Fastify's `reply`. */
function setHeader(response: unknown, name: string, value: string | string[]): void {
  const target = response as {
    header?: (name: string, value: unknown) => unknown;
    setHeader?: (name: string, value: unknown) => unknown;
    raw?: unknown;
  } | null;
  if (target === null || typeof target !== 'object') return;
  if (typeof target.raw === 'object' && typeof target.header === 'function')
    target.header(name, value);
  else if (typeof target.setHeader === 'function') target.setHeader(name, value);
}
