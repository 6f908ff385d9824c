import type { Authenticator } from '../core/security.js';
import { anyOf, type AnyOfOptions } from './any-of.js';
import { MemoryAuthenticator } from './memory-authenticator.js';
import type { MemoryAuthenticatorOptions } from './memory-options.js';
import type { RepositoryAuthenticatorOptions } from './authenticator-options.js';
import { RepositoryAuthenticator } from './repository-authenticator.js';

/**
 * Entry points for building authenticators (SPEC.md's `AuthenticationManager`).
 *
 * @example
 * ```ts
 * import { AuthenticationManager, User } from 'portcullis';
 * const basic = AuthenticationManager.inMemoryAuthentication()
 *   .passwordEncoder(encoder)
 *   .withUser(User.withEncodedPassword('alice', hash).withRoles(['USER']));
 * const authenticator = AuthenticationManager.anyOf(jwt, basic);
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-extraneous-class -- SPEC.md's static factory class
export class AuthenticationManager {
  private constructor() {
    // static factories only
  }

  /** A new, empty {@link MemoryAuthenticator} (HTTP Basic against users held in memory). */
  static inMemoryAuthentication(options?: MemoryAuthenticatorOptions): MemoryAuthenticator {
    return new MemoryAuthenticator(options);
  }

  /**
   * A {@link RepositoryAuthenticator}: HTTP Basic and password logins against a
   * `UserRepository` (Spring's `DaoAuthenticationProvider`).
   */
  static repositoryAuthentication(
    options: RepositoryAuthenticatorOptions,
  ): RepositoryAuthenticator {
    return new RepositoryAuthenticator(options);
  }

  /**
   * An authenticator that tries these in order; the first user found wins, and one
   * that throws counts as no user (event reason `other`). At least one is required.
   */
  static anyOf(...authenticators: Authenticator[]): Authenticator;
  static anyOf(authenticators: readonly Authenticator[], options?: AnyOfOptions): Authenticator;
  static anyOf(...args: unknown[]): Authenticator {
    return (anyOf as (...a: unknown[]) => Authenticator)(...args);
  }
}
