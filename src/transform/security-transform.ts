import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { deadlineExceeded } from '../core/deadline.js';
import { debugOption, describeAuthentication } from '../core/debug.js';
import { ConfigurationError, UnavailableError } from '../core/errors.js';
import { securityEvents, summarize, type SecurityEvents } from '../core/events.js';
import { Outcome, userOf, type AuthenticationOutcome } from '../core/outcome.js';
import type { SecurityRequest } from '../core/request.js';
import {
  assertAuthenticatorConfigured,
  authenticateWithin,
  GRANTED,
  type AuthorizationDecision,
  type AuthorizationExplanation,
  type Authenticator,
  type Authorizer,
  type SecurityResponse,
} from '../core/security.js';
import { Firewall, errorResponse, type FirewallOptions } from '../authorization/index.js';
import { recordAuthentication } from '../http/authentication-record.js';
import { withDeadline } from '../lib/deadline.js';
import { isPromiseLike } from '../lib/promise.js';
import { resolveCors, withCors, type CorsSetting, type ResolvedCors } from './cors.js';
import {
  resolveDeadlines,
  unavailableResponse,
  type ResolvedDeadlines,
  type SecurityDeadlineOptions,
} from './deadlines.js';

/** What {@link SecurityTransform.handle} decided for a request. */
export type SecurityOutcome =
  | {
      /** Call the handler with `user` in the {@link SecurityContext}. */
      readonly proceed: true;
      readonly user: AuthenticatedUser | null;
      /** Headers the adapter adds to the handler's response (CORS), when any. */
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      /** Answer with `response` (400, 401, redirect, 403, or 503 when a dependency did not answer in time) instead of the handler. */
      readonly proceed: false;
      readonly response: SecurityResponse;
      readonly user: AuthenticatedUser | null;
    };

/** Options of {@link SecurityTransform}, the plain-object form of its builder. */
export interface SecurityTransformOptions {
  /** Who the user is. @defaultValue none: every request is anonymous */
  readonly authenticator?: Authenticator;
  /**
   * What the user may do.
   * @defaultValue none: deny by default, every request needs an authenticated user
   *   (401); grant everyone explicitly with
   *   `AuthorizationManager.requestMatcher().anyRequest(Access.permitAll())`
   */
  readonly authorizer?: Authorizer;
  /**
   * The firewall that answers 400 to paths not in normal form before anything else
   * runs. `false` switches it off (only when a proxy in front does the same).
   * @defaultValue `new Firewall()` with every check on
   */
  readonly firewall?: Firewall | FirewallOptions | false;
  /** Where events go. @defaultValue {@link securityEvents} */
  readonly events?: SecurityEvents;
  /**
   * CORS, applied after the firewall and before authentication: a
   * `CorsConfiguration` (or its options) answers preflights and adds the CORS
   * headers to every response; `'pass-through'` lets preflights through without
   * authentication to the application's own CORS middleware.
   * @defaultValue none: no CORS header; a preflight that authorization refuses gets 403
   */
  readonly cors?: CorsSetting | false;
  /**
   * How long authentication and authorization may take before the request fails
   * closed (503 + `Retry-After`, a `deadline-exceeded` event).
   * @defaultValue `{ authenticationMs: 10_000, authorizationMs: 10_000 }`
   */
  readonly deadlines?: SecurityDeadlineOptions;
  /**
   * Debug mode: every decision explains itself in its event. An `access-denied` event
   * carries the requirement (`expression`), the term that failed (`failingTerm`) and
   * how authentication ended (`authentication`: `anonymous`, `failed: invalid-token`,
   * …); an `access-granted` event names the rule that let each request through.
   * Costs an explanation per request (the authorizer's `explain`), and the responses
   * wait for it; nothing of it reaches the client. Refused with `NODE_ENV=production`
   * (a `ConfigurationError`), so that it is never left on in production by accident.
   * @defaultValue `false`
   */
  readonly debug?: boolean;
}

/**
 * The HTTP security pipeline, framework-neutral: firewall, then authenticate, then
 * authorize. Adapters (`portcullis/node`, `portcullis/fetch`, `portcullis/fastify`)
 * build a {@link SecurityRequest}, call {@link SecurityTransform.handle} and either
 * answer with its response or call the handler with the user in the
 * `SecurityContext`.
 *
 * @example
 * ```ts
 * import { AuthenticationManager, AuthorizationManager, Access, SecurityTransform } from 'portcullis';
 * const transform = new SecurityTransform()
 *   .configAuthenticator(() => AuthenticationManager.inMemoryAuthentication()
 *     .passwordEncoder(encoder).withUser(user))
 *   .configAuthorizer(() => AuthorizationManager.requestMatcher()
 *     .httpBasic()
 *     .addMatcher('/admin/.*', new Access().roles(['ADMIN'])));
 * ```
 */
export class SecurityTransform {
  #authenticator: Authenticator | undefined;
  #authorizer: Authorizer | undefined;
  #firewall: Firewall | undefined;
  #events: SecurityEvents;
  #deadlines: ResolvedDeadlines;
  #cors: ResolvedCors;
  #debug: boolean;

  constructor(options: SecurityTransformOptions = {}) {
    if (options.authenticator !== undefined) assertAuthenticatorConfigured(options.authenticator);
    this.#authenticator = options.authenticator;
    this.#authorizer = options.authorizer;
    this.#events = options.events ?? securityEvents;
    this.#firewall = toFirewall(options.firewall);
    this.#deadlines = resolveDeadlines(options.deadlines);
    this.#cors = resolveCors(options.cors);
    this.#debug = debugOption(options.debug);
  }

  /** Sets the authenticator; the factory runs once, now (SPEC.md's `config_authenticator`). */
  configAuthenticator(factory: () => Authenticator): this {
    const authenticator = factory();
    if (typeof (authenticator as Partial<Authenticator> | null)?.getUser !== 'function') {
      throw new ConfigurationError(
        'configAuthenticator',
        'the factory must return an Authenticator',
      );
    }
    assertAuthenticatorConfigured(authenticator);
    this.#authenticator = authenticator;
    return this;
  }

  /** Sets the authorizer; the factory runs once, now (SPEC.md's `config_authorizer`). */
  configAuthorizer(factory: () => Authorizer): this {
    const authorizer = factory();
    if (typeof (authorizer as Partial<Authorizer> | null)?.authorize !== 'function') {
      throw new ConfigurationError('configAuthorizer', 'the factory must return an Authorizer');
    }
    this.#authorizer = authorizer;
    return this;
  }

  /** Replaces the firewall, or switches it off with `false`. */
  configFirewall(firewall: Firewall | FirewallOptions | false): this {
    this.#firewall = toFirewall(firewall);
    return this;
  }

  /**
   * Sets CORS (a `CorsConfiguration` or its options, or `'pass-through'`), or
   * switches it off with `false`. See {@link SecurityTransformOptions.cors}.
   */
  configCors(cors: CorsSetting | false): this {
    this.#cors = resolveCors(cors);
    return this;
  }

  /** Sets where events go. */
  configEvents(events: SecurityEvents): this {
    this.#events = events;
    return this;
  }

  /** Turns debug mode on or off (see {@link SecurityTransformOptions.debug}). */
  configDebug(debug: boolean): this {
    this.#debug = debugOption(debug);
    return this;
  }

  /** Sets the deadlines of authentication and authorization (see {@link SecurityDeadlineOptions}). */
  configDeadlines(deadlines: SecurityDeadlineOptions): this {
    this.#deadlines = resolveDeadlines(deadlines);
    return this;
  }

  /**
   * Runs the pipeline for one request. Resolves synchronously when the
   * authenticator and authorizer are synchronous.
   */
  handle(request: SecurityRequest): SecurityOutcome | Promise<SecurityOutcome> {
    const firewall = this.#firewall;
    if (firewall) {
      const reason = firewall.check(request);
      if (reason !== null) {
        if (this.#events.hasListeners) {
          this.#events.publish({ type: 'request-rejected', reason, request: summarize(request) });
        }
        return { proceed: false, response: firewall.reject(reason, request), user: null };
      }
    }
    if (this.#cors !== undefined || request.method === 'OPTIONS') {
      return withCors(this.#cors, request, this.#events, () => this.#authenticate(request));
    }
    return this.#authenticate(request);
  }

  #authenticate(request: SecurityRequest): SecurityOutcome | Promise<SecurityOutcome> {
    const authenticator = this.#authenticator;
    if (!authenticator) return this.#authorize(ANONYMOUS, request);
    // A deadline passed or a store is down: 503, never anonymous.
    const failClosed = (error: unknown): SecurityOutcome => {
      if (error instanceof UnavailableError) return unavailable(error, request);
      throw error;
    };
    let found: AuthenticationOutcome | Promise<AuthenticationOutcome>;
    try {
      found = authenticateWithin(
        authenticator,
        request,
        this.#deadlines.authenticationMs,
        this.#events,
      );
    } catch (error) {
      return failClosed(error);
    }
    if (!isPromiseLike(found)) return this.#authorize(found, request);
    return found.then((outcome) => this.#authorize(outcome, request), failClosed);
  }

  #authorize(
    authentication: AuthenticationOutcome,
    request: SecurityRequest,
  ): SecurityOutcome | Promise<SecurityOutcome> {
    const authorizer = this.#authorizer ?? AUTHENTICATED;
    const user = userOf(authentication);
    let decision: ReturnType<Authorizer['authorize']>;
    try {
      decision = authorizer.authorize(user, request);
    } catch (error) {
      // A rate limit reached, a store down (thrown at once by a synchronous authorizer).
      if (error instanceof UnavailableError) return unavailable(error, request, user);
      throw error;
    }
    if (isPromiseLike(decision)) {
      const ms = this.#deadlines.authorizationMs;
      return withDeadline(decision, ms, () =>
        deadlineExceeded('authorization', ms, this.#events, request),
      ).then(
        (d) => this.#decide(authorizer, d, authentication, request),
        (error: unknown) => {
          if (error instanceof UnavailableError) return unavailable(error, request, user);
          throw error;
        },
      );
    }
    return this.#decide(authorizer, decision, authentication, request);
  }

  #decide(
    authorizer: Authorizer,
    decision: AuthorizationDecision,
    authentication: AuthenticationOutcome,
    request: SecurityRequest,
  ): SecurityOutcome | Promise<SecurityOutcome> {
    if (this.#debug && this.#events.hasListeners) {
      return explainDecision(
        authorizer,
        authentication,
        request,
        this.#deadlines.authorizationMs,
      ).then((why) => this.#decided(authorizer, decision, authentication, request, why));
    }
    return this.#decided(authorizer, decision, authentication, request, undefined);
  }

  #decided(
    authorizer: Authorizer,
    decision: AuthorizationDecision,
    authentication: AuthenticationOutcome,
    request: SecurityRequest,
    why: AuthorizationExplanation | undefined,
  ): SecurityOutcome {
    const user = userOf(authentication);
    if (decision.granted) {
      if (this.#debug && this.#events.hasListeners) {
        this.#events.publish({
          type: 'access-granted',
          username: user?.username ?? null,
          rule: why?.rule ?? 'the authorizer (it has no explain)',
          expression: why?.requirement ?? 'unknown',
          term: why?.term ?? 'unknown',
          authentication: describeAuthentication(authentication),
          request: summarize(request),
        });
      }
      // The context factories downstream (tRPC, GraphQL) reuse it: authenticated once.
      if (this.#authenticator) recordAuthentication(request, this.#authenticator, authentication);
      return { proceed: true, user };
    }
    if (this.#events.hasListeners) {
      this.#events.publish({
        type: 'access-denied',
        username: user?.username ?? null,
        rule: decision.rule,
        request: summarize(request),
        ...(this.#debug
          ? {
              authentication: describeAuthentication(authentication),
              ...(why === undefined ? {} : { expression: why.requirement, failingTerm: why.term }),
            }
          : {}),
      });
    }
    const response =
      authorizer.onDenied?.(decision, request, authentication) ??
      errorResponse(
        decision.reason === 'unauthenticated' && authentication.kind !== 'refused' ? 401 : 403,
        request,
      );
    return { proceed: false, response, user };
  }
}

const ANONYMOUS = Outcome.anonymous();

/** The rule without an authorizer: deny by default, an authenticated user is needed. */
const NO_AUTHORIZER: Extract<AuthorizationDecision, { granted: false }> = Object.freeze({
  granted: false,
  reason: 'unauthenticated',
  rule: 'authenticated() (no authorizer configured: deny by default)',
});

/** The authorizer of a transform that has none: any authenticated user, nobody else. */
const AUTHENTICATED: Authorizer = Object.freeze({
  authorize: (user: AuthenticatedUser | null): AuthorizationDecision =>
    user === null ? NO_AUTHORIZER : GRANTED,
  explain: (user: AuthenticatedUser | null): Promise<AuthorizationExplanation> =>
    Promise.resolve({
      outcome: user === null ? 'unauthenticated' : 'granted',
      rule: NO_AUTHORIZER.rule,
      requirement: 'isAuthenticated()',
      term: 'isAuthenticated()',
      functionFailed: false,
    }),
});

/**
 * Debug mode: the authorizer's explanation of a decision, or `undefined` when it has
 * no `explain`, its explanation failed (a custom function past its deadline, say) or
 * took longer than the authorization's deadline (it calls custom functions again): the
 * decision stands either way, only its event says less.
 */
async function explainDecision(
  authorizer: Authorizer,
  authentication: AuthenticationOutcome,
  request: SecurityRequest,
  timeoutMs: number,
): Promise<AuthorizationExplanation | undefined> {
  if (typeof authorizer.explain !== 'function') return undefined;
  try {
    return await withDeadline(
      authorizer.explain(userOf(authentication), request),
      timeoutMs,
      () => new Error('The explanation took longer than the authorization deadline'),
    );
  } catch {
    return undefined;
  }
}

/** Fails closed: 503 with `Retry-After` instead of the handler. */
function unavailable(
  error: UnavailableError,
  request: SecurityRequest,
  user: AuthenticatedUser | null = null,
): SecurityOutcome {
  return { proceed: false, response: unavailableResponse(error, request), user };
}

function toFirewall(option: Firewall | FirewallOptions | false | undefined): Firewall | undefined {
  if (option === false) return undefined;
  if (option instanceof Firewall) return option;
  return new Firewall(option);
}
