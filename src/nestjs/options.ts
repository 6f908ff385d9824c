import { requireDefaultPolicy, type DefaultPolicy } from '../authorization/default-policy.js';
import { requireChallenges } from '../authorization/challenges.js';
import type { FirewallOptions, Firewall } from '../authorization/index.js';
import { debugOption } from '../core/debug.js';
import { ConfigurationError } from '../core/errors.js';
import { securityEvents, type SecurityEvents } from '../core/events.js';
import {
  GRANTED,
  type Authenticator,
  type Authorizer,
  type AuthorizationDecision,
} from '../core/security.js';
import { rejectUnknownOptions } from '../core/validate.js';
import { SecurityTransform, type SecurityDeadlineOptions } from '../transform/index.js';

/** Options of `PortcullisModule.forRoot` (and what `forRootAsync`'s factory returns). */
export interface PortcullisModuleOptions {
  /** Who the caller is: HTTP Basic, JWT, sessions, or any {@link Authenticator}, chained with `AuthenticationManager.anyOf`. */
  readonly authenticator: Authenticator;
  /**
   * URL rules checked before the handler's decorators (`AuthorizationManager.requestMatcher()`),
   * as the HTTP adapters run them; a request they refuse never reaches the handler.
   * @defaultValue none: the decorators (and {@link PortcullisModuleOptions.defaultPolicy}) decide
   */
  readonly authorizer?: Authorizer;
  /**
   * The firewall that answers 400 to a path not in normal form before anything else
   * runs. `false` switches it off (only when a proxy in front does the same).
   * @defaultValue `new Firewall()` with every check on
   */
  readonly firewall?: Firewall | FirewallOptions | false;
  /** Where `access-denied` and authentication events go. @defaultValue `securityEvents` */
  readonly events?: SecurityEvents;
  /**
   * How long authentication and the URL rules may take before the request fails
   * closed (503 + `Retry-After`).
   * @defaultValue `{ authenticationMs: 10_000, authorizationMs: 10_000 }`
   */
  readonly deadlines?: SecurityDeadlineOptions;
  /**
   * The `WWW-Authenticate` challenges of a 401 (RFC 9110 §11.6.1), e.g.
   * `['Basic realm="api", charset="UTF-8"', 'Bearer realm="api"']`. A refused bearer
   * token adds its RFC 6750 error (`error="invalid_token"`).
   * @defaultValue `[]`: a challenge only for a refused credential
   */
  readonly challenges?: readonly string[];
  /**
   * What a handler with no portcullis decorator (on it or on its class) requires.
   * @defaultValue `'authenticated'` (deny by default)
   */
  readonly defaultPolicy?: DefaultPolicy;
  /**
   * Refuse to start (`app.init()` throws) when a controller has a route handler with
   * no portcullis decorator on it or on its class, naming each such handler.
   * @defaultValue `false`: such handlers follow {@link PortcullisModuleOptions.defaultPolicy}
   */
  readonly strict?: boolean;
  /**
   * Run the rest of each request (guards, pipes, handlers, resolvers) with its user in
   * the `SecurityContext` (`SecurityContext.getUser()` anywhere the request's code
   * runs). `false` saves the cost of `AsyncLocalStorage` on every request (node's
   * promise hooks then never run); `@CurrentUser()` and `request.user` still hold the
   * user, and the rules are the same.
   * @defaultValue `true`
   */
  readonly securityContext?: boolean;
  /**
   * Debug mode: name the rule in denial messages (`Access is denied by
   * hasRole('ADMIN')`), put the requirement and its failing term in the `access-denied`
   * events (`expression`, `failingTerm`; computed with the handler's `args`, just after
   * the denial), and turn on the pipeline's debug mode (its URL rules explained, an
   * `access-granted` event per request). For development only: refused with
   * `NODE_ENV=production` (a `ConfigurationError`).
   * @defaultValue `false`
   */
  readonly debug?: boolean;
}

/** The module's options, validated and completed. @internal */
export interface NestSettings {
  readonly transform: SecurityTransform;
  readonly authenticator: Authenticator;
  readonly events: SecurityEvents;
  readonly challenges: readonly string[];
  readonly defaultPolicy: DefaultPolicy;
  readonly strict: boolean;
  readonly debug: boolean;
  readonly securityContext: boolean;
}

const KNOWN = [
  'authenticator',
  'authorizer',
  'firewall',
  'events',
  'deadlines',
  'challenges',
  'defaultPolicy',
  'strict',
  'debug',
  'securityContext',
];

/** Without URL rules, every request reaches the handler's rule. */
const HANDLERS_DECIDE: Authorizer = Object.freeze({
  authorize: (): AuthorizationDecision => GRANTED,
});

/**
 * Validates the module's options and builds its pipeline.
 *
 * @throws ConfigurationError naming the first bad option
 * @internal
 */
export function resolveNestOptions(options: PortcullisModuleOptions): NestSettings {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError(
      'PortcullisModule',
      'options must be an object with an authenticator',
    );
  }
  rejectUnknownOptions('PortcullisModule', options, KNOWN);
  const {
    authenticator,
    authorizer = HANDLERS_DECIDE,
    firewall,
    events = securityEvents,
    deadlines,
    challenges = [],
    defaultPolicy = 'authenticated',
    strict = false,
    debug = false,
    securityContext = true,
  } = options;
  if (typeof (authenticator as Partial<Authenticator> | null)?.getUser !== 'function') {
    throw new ConfigurationError('authenticator', 'must be an Authenticator');
  }
  if (typeof (authorizer as Partial<Authorizer> | null)?.authorize !== 'function') {
    throw new ConfigurationError('authorizer', 'must be an Authorizer');
  }
  if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  if (typeof strict !== 'boolean') throw new ConfigurationError('strict', 'must be a boolean');
  debugOption(debug);
  if (typeof securityContext !== 'boolean') {
    throw new ConfigurationError('securityContext', 'must be a boolean');
  }
  const transform = new SecurityTransform({
    authenticator,
    authorizer,
    events,
    ...(firewall === undefined ? {} : { firewall }),
    ...(deadlines === undefined ? {} : { deadlines }),
    debug,
  });
  return Object.freeze({
    transform,
    authenticator,
    events,
    challenges: requireChallenges(challenges),
    defaultPolicy: requireDefaultPolicy(defaultPolicy),
    strict,
    debug,
    securityContext,
  });
}
