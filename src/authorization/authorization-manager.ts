import { RequestMatcherAuthorizer, type RequestMatcherOptions } from './request-matcher.js';

/**
 * Entry point of the authorization builders (SPEC.md's `AuthorizationManager`).
 *
 * @example
 * ```ts
 * import { Access, AuthorizationManager } from 'portcullis';
 * const authorizer = AuthorizationManager.requestMatcher()
 *   .httpBasic()
 *   .requestMatchers('/admin/**', new Access().roles(['ADMIN']))
 *   .anyRequest(Access.authenticated()); // the default: unmatched paths need a login
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-extraneous-class -- SPEC.md's static factory class
export class AuthorizationManager {
  private constructor() {
    // static members only
  }

  /** A new URL-rule authorizer, optionally with its scalar settings as an object. */
  static requestMatcher(options?: RequestMatcherOptions): RequestMatcherAuthorizer {
    return new RequestMatcherAuthorizer(options);
  }
}
