import { ConfigurationError } from '../core/errors.js';
import { Access } from './access.js';
import { checkOptionNames } from './options.js';
import type { RequestMatcherAuthorizer } from './request-matcher.js';
import { RateLimit } from '../throttle/rate-limit.js';

/**
 * One URL rule in the plain-object form of {@link RequestMatcherAuthorizer}'s
 * options (for configuration files): either `paths` (path patterns, see
 * {@link RequestMatcherAuthorizer.requestMatchers}) or `regex` (see
 * {@link RequestMatcherAuthorizer.addMatcher}).
 *
 * @example
 * ```ts
 * AuthorizationManager.requestMatcher({
 *   rules: [
 *     { paths: ['/login', '/assets/**'], access: 'permitAll' },
 *     { paths: '/admin/**', access: "hasRole('ADMIN')" },
 *     { paths: '/users/{id}', access: 'path.id == principal.username' },
 *     { regex: '/api/v[0-9]+/.*', access: 'authenticated', methods: ['GET'] },
 *   ],
 *   anyRequest: 'denyAll',
 * });
 * ```
 */
export interface RequestMatcherRuleOptions {
  /** One path pattern or several (one rule each, in order). */
  readonly paths?: string | readonly string[];
  /** A regular expression, fully anchored. */
  readonly regex?: string;
  /**
   * What the rule requires: an {@link Access}, `'permitAll'`, `'denyAll'`,
   * `'authenticated'`, or a security expression (`"hasRole('ADMIN')"`).
   */
  readonly access: Access | string;
  /** The HTTP methods the rule applies to. @defaultValue every method */
  readonly methods?: string | readonly string[];
}

const RULE_OPTION_NAMES = ['paths', 'regex', 'access', 'methods'];

/**
 * Applies the `rules` and `anyRequest` options to an authorizer, in order.
 *
 * @internal
 */
export function applyRuleOptions(
  authorizer: RequestMatcherAuthorizer,
  rules: unknown,
  anyRequest: unknown,
): void {
  if (rules !== undefined) {
    if (!Array.isArray(rules)) throw new ConfigurationError('rules', 'must be an array of rules');
    for (const raw of rules as unknown[]) {
      const rule = checkOptionNames('rules[]', raw, RULE_OPTION_NAMES);
      const access = accessOf(rule.access);
      const methods = rule.methods as string | readonly string[] | undefined;
      const options = methods === undefined ? undefined : { methods };
      if ((rule.paths === undefined) === (rule.regex === undefined)) {
        throw new ConfigurationError('rules', 'each rule needs either paths or regex');
      }
      if (rule.paths !== undefined) {
        authorizer.requestMatchers(rule.paths as string | readonly string[], access, options);
      } else {
        if (typeof rule.regex !== 'string')
          throw new ConfigurationError('regex', 'must be a string');
        authorizer.addMatcher(rule.regex, access, options);
      }
    }
  }
  if (anyRequest !== undefined) authorizer.anyRequest(accessOf(anyRequest));
}

/** An {@link Access} from its plain-object form. */
/**
 * One rate limit of {@link RequestMatcherOptions.rateLimits}: the limit counted for
 * requests to `paths` (path patterns), optionally of `methods` only.
 */
export interface RequestMatcherRateLimitOptions {
  readonly paths: string | readonly string[];
  /** A `rateLimit({ … })`. */
  readonly limit: RateLimit;
  readonly methods?: string | readonly string[];
}

const RATE_LIMIT_OPTION_NAMES = ['paths', 'limit', 'methods'];

/** Adds the `rateLimits` option's entries to the authorizer, in order. @internal */
export function applyRateLimitOptions(
  authorizer: RequestMatcherAuthorizer,
  rateLimits: unknown,
): void {
  if (rateLimits === undefined) return;
  if (!Array.isArray(rateLimits)) {
    throw new ConfigurationError('rateLimits', 'must be an array of { paths, limit, methods? }');
  }
  for (const raw of rateLimits as unknown[]) {
    const entry = checkOptionNames('rateLimits[]', raw, RATE_LIMIT_OPTION_NAMES);
    if (!(entry.limit instanceof RateLimit)) {
      throw new ConfigurationError('rateLimits[].limit', 'must be a rateLimit({ … })');
    }
    if (entry.paths === undefined) {
      throw new ConfigurationError('rateLimits[].paths', 'is required');
    }
    const methods = entry.methods as string | readonly string[] | undefined;
    authorizer.rateLimit(
      entry.paths as string | readonly string[],
      entry.limit,
      methods === undefined ? undefined : { methods },
    );
  }
}

function accessOf(value: unknown): Access {
  if (value instanceof Access) return value;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigurationError(
      'access',
      "must be an Access, 'permitAll', 'denyAll', 'authenticated' or a security expression",
    );
  }
  switch (value.trim()) {
    case 'permitAll':
      return Access.permitAll();
    case 'denyAll':
      return Access.denyAll();
    case 'authenticated':
      return Access.authenticated();
    default:
      return Access.expression(value);
  }
}
