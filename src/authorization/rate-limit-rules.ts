import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError } from '../core/errors.js';
import type { SecurityRequest } from '../core/request.js';
import { consumeLimits } from '../lib/consume-limits.js';
import { RateLimit } from '../throttle/rate-limit.js';
import { compilePathPattern, compilePattern, type CompiledPattern } from './pattern.js';
import type { MatcherOptions } from './request-matcher-options.js';
import { checkRegexRule } from './rule-checks.js';
import { matcherMethods } from './rules.js';

/** A rate-limit rule: the requests it counts, and the limit it counts them against. */
interface LimitRule {
  readonly pattern: CompiledPattern;
  readonly methods: ReadonlySet<string> | undefined;
  readonly limit: RateLimit;
}

/**
 * The rate-limit rules of a {@link RequestMatcherAuthorizer}: unlike its access rules
 * (first match wins), every rule whose pattern matches a request counts it, in the
 * order the rules were added; the first limit exceeded refuses the request with its
 * `TooManyRequestsError` and the later ones are not counted.
 *
 * @internal
 */
export class RateLimitRules {
  readonly #rules: LimitRule[] = [];

  /** The number of rules. */
  get size(): number {
    return this.#rules.length;
  }

  /**
   * Adds the rules of `RequestMatcherAuthorizer.rateLimit`: a path pattern (or a list
   * of them) in Spring's syntax, or a RegExp (checked as `addMatcher` checks its
   * regex rules), compiled now.
   */
  add(
    patterns: string | readonly string[] | RegExp,
    limit: RateLimit,
    options: MatcherOptions | string | undefined,
    caseSensitive: boolean,
  ): void {
    if (!(limit instanceof RateLimit)) {
      throw new ConfigurationError(
        'limit',
        "must be a RateLimit, e.g. rateLimit({ window: '1m', max: 100 })",
      );
    }
    const methods = matcherMethods('rateLimit', options);
    const compiled: CompiledPattern[] = [];
    if (patterns instanceof RegExp) {
      const pattern = compilePattern(patterns, caseSensitive);
      checkRegexRule(pattern);
      compiled.push(pattern);
    } else {
      const list: readonly unknown[] = typeof patterns === 'string' ? [patterns] : patterns;
      if (!Array.isArray(list) || list.length === 0) {
        throw new ConfigurationError(
          'rateLimit',
          'takes a path pattern, a non-empty array of them, or a RegExp',
        );
      }
      for (const pattern of list) {
        if (typeof pattern !== 'string') {
          throw new ConfigurationError(
            'pattern',
            'must be a path pattern string such as "/api/**", or a RegExp',
          );
        }
        compiled.push(compilePathPattern(pattern, caseSensitive));
      }
    }
    for (const pattern of compiled) this.#rules.push({ pattern, methods, limit });
  }

  /**
   * Counts the request against every limit whose rule matches it: nothing (or a
   * promise of nothing) when it is within them all, else throws (or rejects with) the
   * `TooManyRequestsError` of the first limit exceeded, or the `UnavailableError` of a
   * store that failed closed. Synchronous while the stores are.
   */
  consume(user: AuthenticatedUser | null, request: SecurityRequest): Promise<void> | undefined {
    const { path, method } = request;
    let limits: RateLimit[] | undefined;
    for (const rule of this.#rules) {
      if (matches(rule, path, method)) (limits ??= []).push(rule.limit);
    }
    return limits === undefined ? undefined : consumeLimits(limits, { request, user });
  }
}

function matches(rule: LimitRule, path: string, method: string): boolean {
  const { pattern, methods } = rule;
  return (
    (methods === undefined || methods.has(method)) &&
    pattern.regex.test(path) &&
    (pattern.check === undefined || pattern.check(path))
  );
}
