import type { AuthenticatedUser } from '../core/authenticated-user.js';
import type { AuthenticationOutcome, CredentialChallenge } from '../core/outcome.js';
import { ConfigurationError } from '../core/errors.js';
import {
  decodePath,
  extractRawPath,
  normalizePath,
  type SecurityRequest,
} from '../core/request.js';
import type {
  AuthorizationDecision,
  AuthorizationExplanation,
  Authorizer,
  SecurityResponse,
} from '../core/security.js';
import { Access } from './access.js';
import {
  basicChallenge,
  bearerChallenge,
  requireChallenge,
  requireLoginUrl,
  withError,
} from './challenges.js';
import { errorResponse, isBrowserNavigation, loginRedirect } from './entry-points.js';
import { booleanOption, checkOptionNames } from './options.js';
import { RateLimitRules } from './rate-limit-rules.js';
import type { RateLimit } from '../throttle/rate-limit.js';
import { compilePathPattern, compilePattern, type CompiledPattern } from './pattern.js';
import { checkRegexRule, shadowingRules } from './rule-checks.js';
import { RuleIndex } from './rule-index.js';
import { applyRateLimitOptions, applyRuleOptions } from './rule-options.js';
import {
  OPTION_NAMES,
  type MatcherOptions,
  type RequestMatcherOptions,
} from './request-matcher-options.js';
import {
  decide,
  makeRule,
  matcherMethods,
  requireAccess,
  type Denial,
  type Rule,
} from './rules.js';

/** The requirement of a path no rule matches, unless anyRequest() says otherwise. */
const DENY_BY_DEFAULT = makeRule(
  'anyRequest (default)',
  Access.authenticated(),
  compilePattern('.*', false),
  undefined,
);

/**
 * The URL-rule authorizer (SPEC.md's `RequestMatcherAuthorizer`), created by
 * {@link AuthorizationManager.requestMatcher}.
 *
 * Rules match the decoded, normalized path (no query) and are tried in the order
 * they were added; the first match wins. Two kinds share one order:
 *
 * - **path patterns** ({@link RequestMatcherAuthorizer.requestMatchers}, the
 *   recommended form): Spring's PathPattern syntax, `/admin/**`, `/users/{id}`,
 *   `/files/*.pdf`, `/docs/{*rest}`, with the captured variables readable from
 *   expressions as `path.<name>`;
 * - **regular expressions** ({@link RequestMatcherAuthorizer.addMatcher}, SPEC.md's
 *   form): fully anchored (`^(?:pattern)$`), compiled with the `s` and `u` flags.
 *
 * **Deny by default:** a path no rule matches requires an authenticated user (401
 * or the login page for anonymous requests), as in Spring Security 6;
 * `anyRequest(Access.permitAll())` makes such paths public (SPEC.md's behaviour),
 * `anyRequest(Access.denyAll())` closes them.
 *
 * Rules are checked when added: a pattern that can never match a request path, a
 * rule wholly shadowed by earlier ones (where decidable: a literal path or path
 * pattern against the earlier rules, methods included), a regex that can
 * backtrack catastrophically and a regex that looks like a glob (`/admin/*`) are
 * refused with a {@link ConfigurationError} naming the rule. Lookup skips rules
 * whose literal prefix the path lacks, so a thousand rules cost little more than a
 * few, with the same result as a linear scan.
 *
 * Matching is case-insensitive by default, see {@link RequestMatcherAuthorizer.caseSensitive}.
 *
 * @example
 * ```ts
 * import { Access, AuthorizationManager } from 'portcullis';
 * const authorizer = AuthorizationManager.requestMatcher()
 *   .loginUrl('/login')
 *   .httpBasic()
 *   .requestMatchers(['/login', '/assets/**'], Access.permitAll())
 *   .requestMatchers('/admin/**', new Access().roles(['ADMIN']))
 *   .requestMatchers('/users/{id}', Access.expression("path.id == principal.username"))
 *   .requestMatchers('/api/users', new Access().authorities(['users:write']), { methods: ['POST'] })
 *   .anyRequest(new Access());
 * ```
 */
export type { MatcherOptions, RequestMatcherOptions };

export class RequestMatcherAuthorizer implements Authorizer {
  readonly #index = new RuleIndex<Rule>();
  readonly #rules: Rule[] = [];
  readonly #limits = new RateLimitRules();
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
    applyRateLimitOptions(this, o.rateLimits);
    applyRuleOptions(this, o.rules, o.anyRequest);
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
   * Must be called before the first rule. Applies to path patterns and regex rules;
   * a RegExp rule with the `i` flag stays case-insensitive.
   * @defaultValue `false`
   */
  caseSensitive(caseSensitive = true): this {
    if (this.#index.size > 0 || this.#limits.size > 0) {
      throw new ConfigurationError('caseSensitive', 'must be set before the first rule');
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
   * Adds rules written as Spring path patterns (Spring Security 6's
   * `requestMatchers("/admin/**").hasRole("ADMIN")`): paths matching any of
   * `patterns` need `access`. One rule per pattern, in order.
   *
   * - `?` one character; `*` zero or more characters within a segment (a whole
   *   segment `*` at least one); `**` zero or more segments, as the last segment only;
   * - `{name}` a segment (or the rest of a segment part, `{name}.pdf`), captured;
   *   `{name:regex}` the same, matching the regex (no capturing groups, checked for
   *   ReDoS); `{*name}` zero or more trailing segments, captured with their
   *   leading `/` (`''` for none), last segment only;
   * - everything else is literal, compared with the decoded, normalized path, case-
   *   insensitively unless {@link RequestMatcherAuthorizer.caseSensitive}.
   *
   * As in Spring 6, a trailing slash is not optional: `/users` does not match
   * `/users/`. `/admin/**` matches `/admin`, `/admin/` and everything below.
   * Captured variables are read by expressions as `path.<name>`:
   * `Access.expression('path.id == principal.username')` on `/users/{id}`; an
   * expression that reads a variable the pattern does not capture is refused.
   *
   * @throws ConfigurationError for a pattern Spring refuses or that can never match,
   * a rule shadowed by earlier rules, or after {@link RequestMatcherAuthorizer.anyRequest}
   *
   * @example
   * ```ts
   * matcher
   *   .requestMatchers(['/', '/login', '/assets/**'], Access.permitAll())
   *   .requestMatchers('/users/{id}/**', Access.expression("path.id == principal.username or hasRole('ADMIN')"))
   *   .requestMatchers('/admin/**', new Access().roles(['ADMIN']), { methods: ['POST', 'DELETE'] });
   * ```
   */
  requestMatchers(
    patterns: string | readonly string[],
    access: Access,
    options?: MatcherOptions | string,
  ): this {
    const list: readonly unknown[] = typeof patterns === 'string' ? [patterns] : patterns;
    if (!Array.isArray(list) || list.length === 0) {
      throw new ConfigurationError(
        'requestMatchers',
        'takes a path pattern or a non-empty array of them',
      );
    }
    const methods = matcherMethods('requestMatchers', options);
    const checked = requireAccess(access);
    for (const pattern of list) {
      if (typeof pattern !== 'string') {
        throw new ConfigurationError(
          'pattern',
          'must be a path pattern string such as "/admin/**"',
        );
      }
      this.#add(
        'requestMatchers',
        compilePathPattern(pattern, this.#caseSensitive),
        checked,
        methods,
      );
    }
    return this;
  }

  /**
   * Adds a rule written as a regular expression (SPEC.md's `add_matcher`): paths
   * matching `pattern` (fully anchored, see the class) need `access`. A RegExp keeps
   * its `i` flag; `g`, `y`, `m` and `d` are dropped. Prefer
   * {@link RequestMatcherAuthorizer.requestMatchers}: `/admin/*` is a path pattern
   * there, while here it would be the regex "/admin and slashes" (refused, with a hint).
   *
   * Refused with a {@link ConfigurationError}: an invalid regex; one that looks like a
   * glob; one that cannot match an absolute path (`admin/.*`); one that can backtrack
   * catastrophically (`^/(a+)+$`: checked by a quick proof, else by the `recheck`
   * analyser, loaded on first use); a rule shadowed by earlier rules.
   */
  addMatcher(pattern: string | RegExp, access: Access, options?: MatcherOptions | string): this {
    const methods = matcherMethods('addMatcher', options);
    const checked = requireAccess(access);
    const compiled = compilePattern(pattern, this.#caseSensitive);
    checkRegexRule(compiled);
    this.#add('addMatcher', compiled, checked, methods);
    return this;
  }

  /**
   * Counts the requests matching `patterns` against `limit` (see `rateLimit`): past
   * it a request is refused with 429 and `Retry-After`. Unlike access rules, every
   * rate-limit rule that matches counts the request, wherever it was added. Requests
   * are counted after authentication (`by: 'user'` sees the user) and before the
   * access rules, so denied requests count too.
   * @param patterns - a path pattern or a list of them (as {@link RequestMatcherAuthorizer.requestMatchers}), or a RegExp (as {@link RequestMatcherAuthorizer.addMatcher})
   * @param options - `methods`: count only these methods
   * @throws ConfigurationError for a bad pattern or something other than a `RateLimit`
   *
   * @example
   * ```ts
   * matcher
   *   .rateLimit('/api/**', rateLimit({ name: 'api', window: '1m', max: 100, by: 'user' }))
   *   .rateLimit('/search', rateLimit({ name: 'search', window: '1m', max: 10, by: 'address' }), { methods: ['GET'] });
   * ```
   */
  rateLimit(
    patterns: string | readonly string[] | RegExp,
    limit: RateLimit,
    options?: MatcherOptions | string,
  ): this {
    this.#limits.add(patterns, limit, options, this.#caseSensitive);
    return this;
  }

  /**
   * Sets the requirement of every path no rule matched; must be the last rule.
   * Without it such a path requires an authenticated user (deny by default);
   * `anyRequest(Access.permitAll())` makes it public, as SPEC.md's "a path that
   * matches no rule is public".
   */
  anyRequest(access: Access): this {
    if (this.#anyRequest) throw new ConfigurationError('anyRequest', 'is already set');
    this.#anyRequest = makeRule(
      'anyRequest',
      requireAccess(access),
      compilePattern('.*', false),
      undefined,
    );
    return this;
  }

  #add(
    owner: string,
    pattern: CompiledPattern,
    access: Access,
    methods: ReadonlySet<string> | undefined,
  ): void {
    if (this.#anyRequest) {
      throw new ConfigurationError(
        owner,
        `${pattern.source}: a rule after anyRequest() could never match`,
      );
    }
    const label = methods ? `${pattern.source} [${[...methods].join(', ')}]` : pattern.source;
    const rule = makeRule(label, access, pattern, methods);
    const shadows = shadowingRules(this.#rules, rule);
    if (shadows !== undefined) {
      throw new ConfigurationError(
        'pattern',
        `the rule ${rule.description} can never apply: every path it matches is matched ` +
          `first by ${shadows.map((shadow) => shadow.description).join(' and ')}. Put the more ` +
          'specific rule first',
      );
    }
    this.#rules.push(rule);
    this.#index.add(rule);
  }

  /**
   * Decides a request: the first matching rule's requirement, else the catch-all,
   * else an authenticated user is required (deny by default). Counts the request
   * against the matching rate limits first: past one, rejects with its
   * `TooManyRequestsError` (429).
   */
  authorize(
    user: AuthenticatedUser | null,
    request: SecurityRequest,
  ): AuthorizationDecision | Promise<AuthorizationDecision> {
    if (this.#limits.size === 0) return this.#decide(user, request);
    let counted: Promise<void> | undefined;
    try {
      counted = this.#limits.consume(user, request);
    } catch (error) {
      // Refused (or the store failed closed): always as a rejection, which the transform answers.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passed on as thrown
      return Promise.reject(error);
    }
    return counted === undefined
      ? this.#decide(user, request)
      : counted.then(() => this.#decide(user, request));
  }

  #decide(
    user: AuthenticatedUser | null,
    request: SecurityRequest,
  ): AuthorizationDecision | Promise<AuthorizationDecision> {
    const rule =
      this.#index.find(request.path, request.method) ?? this.#anyRequest ?? DENY_BY_DEFAULT;
    const outcome =
      rule.capture === undefined ? rule.check(user) : rule.check(user, rule.capture(request.path));
    return typeof outcome === 'string'
      ? decide(rule, outcome)
      : outcome.then((resolved) => decide(rule, resolved));
  }

  /**
   * Why `user` is granted or refused `request`: the rule that matches (or the
   * catch-all, or deny by default), its requirement, and the term that decided. The
   * same choice of rule as {@link RequestMatcherAuthorizer.authorize}, without its
   * rate limits (nothing is counted). For debug mode and `npx portcullis explain`.
   *
   * @example
   * ```ts
   * const why = await rules.explain(alice, request);
   * // { outcome: 'forbidden', rule: "/admin/** → hasAnyRole('ADMIN')", term: "hasAnyRole('ADMIN')", … }
   * ```
   */
  async explain(
    user: AuthenticatedUser | null,
    request: SecurityRequest,
  ): Promise<AuthorizationExplanation> {
    const rule =
      this.#index.find(request.path, request.method) ?? this.#anyRequest ?? DENY_BY_DEFAULT;
    const path = rule.capture === undefined ? undefined : rule.capture(request.path);
    const explained = await rule.access.explain(user, path);
    return Object.freeze({
      outcome: explained.outcome,
      rule: rule.description,
      requirement: explained.requirement,
      term: explained.term,
      functionFailed: explained.functionFailed,
    });
  }

  /**
   * The entry point: a login redirect, 401 with the configured challenges, or 403.
   * The body never contains the rule or the path.
   */
  onDenied(
    decision: Denial,
    request: SecurityRequest,
    authentication?: AuthenticationOutcome,
  ): SecurityResponse {
    const problemDetails = this.#problemDetails;
    if (decision.reason === 'forbidden' || authentication?.kind === 'refused') {
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
    const failure = authentication?.kind === 'failed' ? authentication.challenge : undefined;
    const headers = failure ? this.#challengeFor(failure) : this.#challengeHeader;
    return errorResponse(401, request, { headers, problemDetails });
  }

  /** The challenges, the one of the refused credential's scheme carrying its error. */
  #challengeFor(failure: CredentialChallenge): Readonly<Record<string, string>> {
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
