import type { Access } from './access.js';
import type { RequestMatcherRateLimitOptions, RequestMatcherRuleOptions } from './rule-options.js';

/** Options of {@link RequestMatcherAuthorizer.requestMatchers} and {@link RequestMatcherAuthorizer.addMatcher}. */
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
  /**
   * The rules, in order (first match wins): `{ paths: '/admin/**', access: "hasRole('ADMIN')" }`
   * or `{ regex: '/admin/.*', access: 'permitAll', methods: ['GET'] }`. See
   * {@link RequestMatcherRuleOptions}. @defaultValue `[]`
   */
  readonly rules?: readonly RequestMatcherRuleOptions[];
  /**
   * Rate limits on URL rules, as {@link RequestMatcherAuthorizer.rateLimit} adds them:
   * `{ paths: '/api/**', limit: rateLimit({ name: 'api', window: '1m', max: 100 }) }`,
   * optionally with `methods`. @defaultValue `[]`
   */
  readonly rateLimits?: readonly RequestMatcherRateLimitOptions[];
  /**
   * The requirement of a path no rule matches: see {@link RequestMatcherAuthorizer.anyRequest}.
   * @defaultValue `'authenticated'`
   */
  readonly anyRequest?: Access | string;
}

/** The option names of {@link RequestMatcherOptions}. @internal */
export const OPTION_NAMES = [
  'loginUrl',
  'httpBasic',
  'bearer',
  'challenges',
  'caseSensitive',
  'problemDetails',
  'rules',
  'rateLimits',
  'anyRequest',
];
