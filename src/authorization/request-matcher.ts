import type { AuthenticatedUser } from '../core/authenticated-user.js';
import {
  credentialFailureOf,
  refusalOf,
  type CredentialFailure,
} from '../core/credential-failure.js';
import { ConfigurationError } from '../core/errors.js';
import {
  decodePath,
  extractRawPath,
  normalizePath,
  type SecurityRequest,
} from '../core/request.js';
import {
  GRANTED,
  type AuthorizationDecision,
  type Authorizer,
  type SecurityResponse,
} from '../core/security.js';
import { Access, type AccessCheck, type AccessOutcome } from './access.js';
import {
  basicChallenge,
  bearerChallenge,
  requireChallenge,
  requireLoginUrl,
  withError,
} from './challenges.js';
import { errorResponse, isBrowserNavigation, loginRedirect } from './entry-points.js';
import { booleanOption, checkOptionNames, requireMethods } from './options.js';
import { compilePattern, type CompiledPattern } from './pattern.js';
import { RuleIndex } from './rule-index.js';

type Denial = Extract<AuthorizationDecision, { granted: false }>;

function decide(rule: Rule, outcome: AccessOutcome): AuthorizationDecision {
  if (outcome === 'granted') return GRANTED;
  return outcome === 'forbidden' ? rule.forbidden : rule.unauthenticated;
}

/** Options of {@link RequestMatcherAuthorizer.addMatcher}. */
export interface MatcherOptions {
  /**
   * The HTTP methods the rule applies to; other methods fall through to the next
   * rules. A rule for `GET` also applies to `HEAD`, because routers (Express,
   * Fastify) answer `HEAD` with the `GET` handler.
   * @defaultValue every method
   */
  readonly methods?: string | readonly string[];
}

/** Options of {@link RequestMatcherAuthorizer}: the plain-object form of its builder. */
export interface RequestMatcherOptions {
  /** See {@link RequestMatcherAuthorizer.loginUrl}. @defaultValue none: 401 for everyone */
  readonly loginUrl?: string;
  /** `true` or a realm: see {@link RequestMatcherAuthorizer.httpBasic}. @defaultValue `false` */
  readonly httpBasic?: boolean | string;
  /** `true` or a realm: see {@link RequestMatcherAuthorizer.bearer}. @defaultValue `false` */
  readonly bearer?: boolean | string;
  /** Extra `WWW-Authenticate` challenges, e.g. `Bearer realm="api"`. @defaultValue `[]` */
  readonly challenges?: readonly string[];
  /** See {@link RequestMatcherAuthorizer.caseSensitive}. @defaultValue `false` */
  readonly caseSensitive?: boolean;
  /** See {@link RequestMatcherAuthorizer.problemDetails}. @defaultValue negotiated by Accept */
  readonly problemDetails?: boolean;
}

const OPTION_NAMES = [
  'loginUrl',
  'httpBasic',
  'bearer',
  'challenges',
  'caseSensitive',
  'problemDetails',
];

interface Rule {
  readonly pattern: CompiledPattern;
  readonly methods: ReadonlySet<string> | undefined;
  readonly check: AccessCheck;
  readonly unauthenticated: Denial;
  readonly forbidden: Denial;
}

/**
 * The URL-rule authorizer (SPEC.md's `RequestMatcherAuthorizer`), created by
 * {@link AuthorizationManager.requestMatcher}.
 *
 * Rules are regular expressions over the decoded, normalized path (no query). Each
 * is fully anchored (`^(?:pattern)$`) and compiled once with the `s` and `u` flags;
 * they are tried in the order they were added and the first match wins. A path no
 * rule matches is public, unless {@link RequestMatcherAuthorizer.anyRequest} sets a
 * catch-all. Lookup skips rules whose literal prefix the path lacks, so a thousand
 * rules cost little more than a few, with the same result as a linear scan.
 *
 * Matching is case-insensitive by default, see {@link RequestMatcherAuthorizer.caseSensitive}.
 *
 * @example
 * ```ts
 * import { Access, AuthorizationManager } from 'portcullis';
 * const authorizer = AuthorizationManager.requestMatcher()
 *   .loginUrl('/login')
 *   .httpBasic()
 *   .addMatcher('/login|/assets/.*', Access.permitAll())
 *   .addMatcher('/admin(?:/.*)?', new Access().roles(['ADMIN']))
 *   .addMatcher('/api/users', new Access().authorities(['users:write']), { methods: ['POST'] })
 *   .anyRequest(new Access());
 * ```
 */
export class RequestMatcherAuthorizer implements Authorizer {
  readonly #index = new RuleIndex<Rule>();
  #anyRequest: Rule | undefined;
  #caseSensitive = false;
  #loginUrl: string | undefined;
  #targetParameter: string | undefined;
  #loginPath: string | undefined;
  #basic = false;
  #bearer = false;
  readonly #challenges: string[] = [];
  #challengeHeader: Readonly<Record<string, string>> = {};
  #problemDetails: boolean | 'negotiate' = 'negotiate';

  /** @param options - the scalar settings, e.g. read from a configuration file */
  constructor(options?: RequestMatcherOptions) {
    const o = checkOptionNames('RequestMatcherAuthorizer', options, OPTION_NAMES);
    if (o.caseSensitive !== undefined)
      this.caseSensitive(booleanOption('caseSensitive', o.caseSensitive, false));
    if (typeof o.loginUrl !== 'undefined') this.loginUrl(o.loginUrl as string);
    if (typeof o.httpBasic === 'string') this.httpBasic(o.httpBasic);
    else if (booleanOption('httpBasic', o.httpBasic, false)) this.httpBasic();
    if (typeof o.bearer === 'string') this.bearer(o.bearer);
    else if (booleanOption('bearer', o.bearer, false)) this.bearer();
    if (o.challenges !== undefined) {
      if (!Array.isArray(o.challenges)) {
        throw new ConfigurationError('challenges', 'must be an array of strings');
      }
      for (const value of o.challenges as unknown[]) this.challenge(value as string);
    }
    if (o.problemDetails !== undefined)
      this.problemDetails(booleanOption('problemDetails', o.problemDetails, false));
  }

  /**
   * Redirects browser navigations (Accept lists `text/html`, no
   * `X-Requested-With: XMLHttpRequest`) that need a login to this path with a 302;
   * other clients get 401. A request for the login page itself is never redirected
   * (no loop): permit it with a rule.
   * @param path - a same-origin absolute path such as `/login` (printable ASCII, one leading `/`)
   * @param options - `targetParameter`: also send the requested path and query in this
   *   query parameter (`/login?continue=%2Fme`), for the login form to return to it
   *   after login (the form-login handler only follows same-origin paths)
   */
  loginUrl(path: string, options: { readonly targetParameter?: string } = {}): this {
    this.#loginUrl = requireLoginUrl(path);
    this.#loginPath = normalizePath(decodePath(extractRawPath(path)));
    const parameter = options.targetParameter;
    if (
      parameter !== undefined &&
      (typeof parameter !== 'string' || !/^[A-Za-z0-9_-]+$/u.test(parameter))
    ) {
      throw new ConfigurationError(
        'targetParameter',
        'must be a query parameter name ([A-Za-z0-9_-])',
      );
    }
    this.#targetParameter = parameter;
    return this;
  }

  /**
   * Adds the HTTP Basic challenge (RFC 7617) to 401 responses:
   * `Basic realm="<realm>", charset="UTF-8"`.
   * @param realm - printable ASCII; `"` and `\` are escaped. @defaultValue `'Restricted'`
   */
  httpBasic(realm = 'Restricted'): this {
    if (this.#basic) throw new ConfigurationError('httpBasic', 'is already configured');
    const challenge = basicChallenge(realm);
    this.#basic = true;
    return this.challenge(challenge);
  }

  /**
   * Adds the bearer-token challenge (RFC 6750 §3) to 401 responses:
   * `Bearer realm="<realm>"`. When an authenticator refused a presented token (a
   * JWT that is expired, badly signed, …) the challenge says so:
   * `Bearer realm="api", error="invalid_token", error_description="…"`.
   * @param realm - printable ASCII; `"` and `\` are escaped. @defaultValue `'api'`
   */
  bearer(realm = 'api'): this {
    if (this.#bearer) throw new ConfigurationError('bearer', 'is already configured');
    const challenge = bearerChallenge(realm);
    this.#bearer = true;
    return this.challenge(challenge);
  }

  /**
   * Adds a `WWW-Authenticate` challenge (RFC 9110 §11.6.1) to 401 responses, e.g.
   * `Bearer realm="api"` (RFC 6750). Challenges are joined with `, ` in the order added.
   */
  challenge(value: string): this {
    this.#challenges.push(requireChallenge(value));
    this.#challengeHeader = { 'www-authenticate': this.#challenges.join(', ') };
    return this;
  }

  /**
   * Whether rules match the path case-sensitively. Default `false`: every rule gets
   * the `i` flag. Express's router is case-insensitive, so `/ADMIN/x` reaches the
   * handler of `/admin/x`; a case-sensitive rule `^/admin/.*` would not match it and
   * the request would get through.
   *
   * The trade-off: with case-insensitive rules a permissive rule (`^/public/.*` →
   * `permitAll`) also matches `/PUBLIC/x`, which a case-sensitive router may route
   * to another handler (say `/:section/x`). So keep the default with a
   * case-insensitive router (Express, Connect) and call `caseSensitive(true)` only
   * when your router is case-sensitive too (Fastify's default, Hono); in both modes
   * prefer a deny-by-default catch-all ({@link RequestMatcherAuthorizer.anyRequest})
   * and narrow permit rules. `iu` matching uses Unicode case folding: `ſ` (U+017F)
   * matches `s` and the Kelvin sign (U+212A) `k`, which Express's ASCII folding does not.
   *
   * Must be called before the first {@link RequestMatcherAuthorizer.addMatcher}. A
   * RegExp rule with the `i` flag stays case-insensitive.
   * @defaultValue `false`
   */
  caseSensitive(caseSensitive = true): this {
    if (this.#index.size > 0) {
      throw new ConfigurationError('caseSensitive', 'must be set before the first addMatcher()');
    }
    this.#caseSensitive = booleanOption('caseSensitive', caseSensitive, true);
    return this;
  }

  /**
   * `true`: denial bodies are always RFC 9457 problem details JSON; `false`: always
   * plain text. Without a call, the Accept header decides.
   */
  problemDetails(enabled = true): this {
    this.#problemDetails = booleanOption('problemDetails', enabled, true);
    return this;
  }

  /**
   * Adds a rule: paths matching `pattern` (fully anchored, see the class) need
   * `access`. A RegExp keeps its `i` flag; `g`, `y`, `m` and `d` are dropped.
   * @throws ConfigurationError for an invalid pattern, or after {@link RequestMatcherAuthorizer.anyRequest}
   */
  addMatcher(pattern: string | RegExp, access: Access, options?: MatcherOptions | string): this {
    if (this.#anyRequest) {
      throw new ConfigurationError('addMatcher', 'a rule after anyRequest() could never match');
    }
    const methods = matcherMethods(options);
    const compiled = compilePattern(pattern, this.#caseSensitive);
    const label = methods ? `${compiled.source} [${[...methods].join(', ')}]` : compiled.source;
    this.#index.add(makeRule(label, requireAccess(access), compiled, methods));
    return this;
  }

  /** Sets the requirement of every path no rule matched; must be the last rule. */
  anyRequest(access: Access): this {
    if (this.#anyRequest) throw new ConfigurationError('anyRequest', 'is already set');
    this.#anyRequest = makeRule('anyRequest', requireAccess(access), undefined, undefined);
    return this;
  }

  /** Decides a request: the first matching rule's requirement, else the catch-all, else granted. Pure. */
  authorize(
    user: AuthenticatedUser | null,
    request: SecurityRequest,
  ): AuthorizationDecision | Promise<AuthorizationDecision> {
    const rule = this.#index.find(request.path, request.method) ?? this.#anyRequest;
    if (!rule) return GRANTED;
    const outcome = rule.check(user);
    return typeof outcome === 'string'
      ? decide(rule, outcome)
      : outcome.then((resolved) => decide(rule, resolved));
  }

  /**
   * The entry point: a login redirect, 401 with the configured challenges, or 403.
   * The body never contains the rule or the path.
   */
  onDenied(decision: Denial, request: SecurityRequest): SecurityResponse {
    const problemDetails = this.#problemDetails;
    if (decision.reason === 'forbidden' || refusalOf(request) !== undefined) {
      // A refused request (e.g. a session cookie failing the CSRF checks) is not a
      // missing login: 403, never a redirect to the login page.
      return errorResponse(403, request, { problemDetails });
    }
    if (
      this.#loginUrl !== undefined &&
      isBrowserNavigation(request) &&
      !this.#isLoginPage(request)
    ) {
      return loginRedirect(this.#redirectTarget(this.#loginUrl, request));
    }
    const failure = credentialFailureOf(request);
    const headers = failure ? this.#challengeFor(failure) : this.#challengeHeader;
    return errorResponse(401, request, { headers, problemDetails });
  }

  /** The challenges, the one of the refused credential's scheme carrying its error. */
  #challengeFor(failure: CredentialFailure): Readonly<Record<string, string>> {
    const scheme = failure.scheme.toLowerCase();
    const challenges = this.#challenges.map((challenge) =>
      challenge.split(' ', 1)[0]?.toLowerCase() === scheme
        ? withError(challenge, failure)
        : challenge,
    );
    return challenges.length === 0 ? {} : { 'www-authenticate': challenges.join(', ') };
  }

  /** The login URL, with the requested path and query in the target parameter when one is set. */
  #redirectTarget(loginUrl: string, request: SecurityRequest): string {
    const parameter = this.#targetParameter;
    if (parameter === undefined || request.method !== 'GET') return loginUrl;
    const url = request.url;
    const target = /^[a-z][a-z0-9+.-]*:\/\//iu.test(url)
      ? url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/iu, '')
      : url;
    if (!target.startsWith('/') || target.startsWith('//') || target.length > 2048) return loginUrl;
    const separator = loginUrl.includes('?') ? '&' : '?';
    return `${loginUrl}${separator}${parameter}=${encodeURIComponent(target)}`;
  }

  #isLoginPage(request: SecurityRequest): boolean {
    const login = this.#loginPath ?? '';
    return this.#caseSensitive
      ? request.path === login
      : request.path.toLowerCase() === login.toLowerCase();
  }
}

function makeRule(
  label: string,
  access: Access,
  pattern: CompiledPattern | undefined,
  methods: ReadonlySet<string> | undefined,
): Rule {
  const rule = `${label} → ${access.toString()}`;
  return {
    pattern: pattern ?? compilePattern('.*', false),
    methods,
    check: access.check,
    unauthenticated: Object.freeze({ granted: false, reason: 'unauthenticated', rule }),
    forbidden: Object.freeze({ granted: false, reason: 'forbidden', rule }),
  };
}

function requireAccess(access: unknown): Access {
  if (!(access instanceof Access)) {
    throw new ConfigurationError('access', 'must be an Access, e.g. new Access().roles([...])');
  }
  return access;
}

function matcherMethods(
  options: MatcherOptions | string | undefined,
): ReadonlySet<string> | undefined {
  const raw =
    typeof options === 'string'
      ? options
      : checkOptionNames('addMatcher', options, ['methods']).methods;
  if (raw === undefined) return undefined;
  const methods = new Set(requireMethods('methods', raw));
  if (methods.has('GET')) methods.add('HEAD');
  return methods;
}
