import { inspect } from 'node:util';
import { ImmutableSet } from '../lib/immutable-set.js';
import { requireName, requireNames } from '../lib/validate.js';

/**
 * An account known to an authenticator: a username, the *encoded* password and two
 * separate sets, roles and authorities. Immutable: the builders return a new user.
 *
 * Roles and authorities are matched exactly and case-sensitively; `hasRole('ADMIN')`
 * never looks for `ROLE_ADMIN` (unlike Spring Security).
 *
 * `toJSON()` and `util.inspect` leave the password out, so a user can be logged.
 *
 * @example
 * ```ts
 * import { User } from 'portcullis';
 * const admin = User.withEncodedPassword('admin', await encoder.encode('s3cret'))
 *   .withRoles(['ADMIN', 'USER'])
 *   .withAuthorities(['users:write']);
 * ```
 */
export class User {
  /** The name the user logs in with. */
  readonly username: string;
  /** Roles, e.g. `ADMIN`. */
  readonly roles: ReadonlySet<string>;
  /** Authorities (permissions), e.g. `posts:write`. */
  readonly authorities: ReadonlySet<string>;
  readonly #password: string;

  /**
   * @param username - the login name, a non-empty string without control characters
   * @param encodedPassword - the password as a {@link PasswordEncoder} encoded it; never a raw password
   */
  constructor(
    username: string,
    encodedPassword: string,
    roles: Iterable<string> = [],
    authorities: Iterable<string> = [],
  ) {
    this.username = requireName('username', username);
    if (typeof encodedPassword !== 'string') {
      throw new TypeError('password: must be a string (the encoded password)');
    }
    this.#password = encodedPassword;
    this.roles = new ImmutableSet(requireNames('roles', roles));
    this.authorities = new ImmutableSet(requireNames('authorities', authorities));
    Object.freeze(this);
  }

  /** SPEC.md's constructor: a user with an encoded password and no roles yet. */
  static withEncodedPassword(username: string, encodedPassword: string): User {
    return new User(username, encodedPassword);
  }

  /** The encoded password (never the raw one). Not enumerable, not serialized. */
  get password(): string {
    return this.#password;
  }

  /** A new user with these roles instead of the current ones. */
  withRoles(roles: Iterable<string>): User {
    return new User(this.username, this.#password, roles, this.authorities);
  }

  /** A new user with these authorities instead of the current ones. */
  withAuthorities(authorities: Iterable<string>): User {
    return new User(this.username, this.#password, this.roles, authorities);
  }

  /** A new user with another encoded password, e.g. after a password upgrade. */
  withEncodedPassword(encodedPassword: string): User {
    return new User(this.username, encodedPassword, this.roles, this.authorities);
  }

  /** The user without its password. */
  toJSON(): { username: string; roles: string[]; authorities: string[] } {
    return { username: this.username, roles: [...this.roles], authorities: [...this.authorities] };
  }

  /** @internal */
  [inspect.custom](): string {
    return `User ${inspect(this.toJSON())}`;
  }
}
