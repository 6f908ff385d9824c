import { AuthenticatedUser } from '../core/authenticated-user.js';
import { SecurityContext } from '../core/context.js';
import { ConfigurationError } from '../core/errors.js';
import { User } from '../core/user.js';
import { rejectUnknownOptions } from '../core/validate.js';
import { refuseInProduction } from './production.js';

/** Options of {@link mockUser}. */
export interface MockUserOptions {
  /**
   * The user's roles, matched exactly (`hasRole('ADMIN')` needs `'ADMIN'`).
   * @defaultValue `['USER']`, as Spring's `@WithMockUser`; `[]` for none
   */
  readonly roles?: Iterable<string>;
  /** The user's authorities, e.g. `posts:write`. @defaultValue `[]` */
  readonly authorities?: Iterable<string>;
  /** Facts about the authentication, readable by rules as `principal.attributes.<name>`. @defaultValue `{}` */
  readonly attributes?: Readonly<Record<string, unknown>>;
  /** How the user was authenticated (`jwt`, `session`, …). @defaultValue `'mock'` */
  readonly authenticationMethod?: string;
}

const OPTIONS = ['roles', 'authorities', 'attributes', 'authenticationMethod'];

/**
 * An authenticated user in one call, for tests: what an authenticator answers for a
 * user with these rights (a frozen {@link AuthenticatedUser}, no password). Names are
 * validated as a {@link User}'s are, with the same errors: an empty role or one with a
 * control character is refused.
 *
 * @example
 * ```ts
 * const admin = mockUser('alice', { roles: ['ADMIN'], authorities: ['users:write'] });
 * const reader = mockUser(); // 'user' with the role USER
 * ```
 * @throws ConfigurationError for an invalid name, role, authority or an unknown option
 */
export function mockUser(username = 'user', options: MockUserOptions = {}): AuthenticatedUser {
  refuseInProduction('mockUser');
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('mockUser', 'options must be an object');
  }
  rejectUnknownOptions('mockUser', options, OPTIONS, { aliases: { role: 'roles' } });
  const { roles = ['USER'], authorities = [], attributes, authenticationMethod = 'mock' } = options;
  const user = new User(username, '', roles, authorities);
  return AuthenticatedUser.from(user, {
    authenticationMethod,
    ...(attributes === undefined ? {} : { attributes }),
  });
}

/**
 * Runs `fn` with `user` in the {@link SecurityContext} (`null`: anonymously), for unit
 * tests of code that reads `SecurityContext.getUser()` / `requireUser()`. Returns what
 * `fn` returns; an async `fn` keeps the user across its `await`s.
 *
 * @example
 * ```ts
 * await runAs(mockUser('alice'), () => posts.create('hello')); // the service reads requireUser()
 * ```
 * @throws TypeError when `user` is not an `AuthenticatedUser` or `null`
 */
export function runAs<R>(user: AuthenticatedUser | null, fn: () => R): R {
  refuseInProduction('runAs');
  return SecurityContext.run(user, fn);
}
