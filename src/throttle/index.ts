export {
  ClientAddressResolver,
  addressKey,
  type ClientAddressOptions,
  type TrustedProxies,
} from './client-address.js';
export type { Duration } from './duration.js';
export type { LimitedRequest, LimiterOptions, StoreFailurePolicy } from './limiter-store.js';
export {
  LoginThrottle,
  type LoginAttempt,
  type LoginAttemptResult,
  type LoginThrottleOptions,
  type LoginThrottleRuleOptions,
} from './login-throttle.js';
export {
  RateLimit,
  rateLimit,
  type RateLimitKey,
  type RateLimitOptions,
  type RateLimitState,
  type RateLimitSubject,
} from './rate-limit.js';
