import { inspect } from 'node:util';
import type { User } from './user.js';

/** Options of {@link AuthenticatedUser.from}. */
export interface AuthenticatedUserOptions {
  /**
   * How the user was authenticated, e.g. `basic`, `jwt`, `session`, `oauth2`.
   * @defaultValue `'custom'`
   */
  readonly authenticationMethod?: string;
  /**
   * Extra facts about the authentication (token claims, session id, ...), readable
   * by rules as `principal.attributes.<name>`.
   * @defaultValue `{}`
   */
  readonly attributes?: Readonly<Record<string, unknown>>;
}

/**
 * The user of the current request, as handlers, tRPC procedures and GraphQL
 * resolvers receive it. Immutable.
 *
 * @example
 * ```ts
 * import { SecurityContext } from 'portcullis';
 * const user = SecurityContext.requireUser();
 * if (user.hasAuthority('posts:write')) { ... }
 * ```
 */
export class AuthenticatedUser {
  readonly username: string;
  readonly roles: ReadonlySet<string>;
  readonly authorities: ReadonlySet<string>;
  /** How the user was authenticated, e.g. `basic`. */
  readonly authenticationMethod: string;
  /** Extra facts about the authentication; a frozen object without a prototype. */
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly #password: string;

  private constructor(user: User, options: AuthenticatedUserOptions) {
    this.username = user.username;
    this.roles = user.roles;
    this.authorities = user.authorities;
    this.#password = user.password;
    this.authenticationMethod = options.authenticationMethod ?? 'custom';
    this.attributes = Object.freeze(
      Object.assign(Object.create(null) as Record<string, unknown>, options.attributes),
    );
    Object.freeze(this);
  }

  /** The authenticated form of a {@link User}. */
  static from(user: User, options: AuthenticatedUserOptions = {}): AuthenticatedUser {
    return new AuthenticatedUser(user, options);
  }

  /** SPEC.md accessor for {@link AuthenticatedUser.username}. */
  getUsername(): string {
    return this.username;
  }

  /** SPEC.md accessor for {@link AuthenticatedUser.roles}. */
  getRoles(): ReadonlySet<string> {
    return this.roles;
  }

  /** SPEC.md accessor for {@link AuthenticatedUser.authorities}. */
  getAuthorities(): ReadonlySet<string> {
    return this.authorities;
  }

  /** The encoded password of the user's account (`''` for token-based users). */
  getPassword(): string {
    return this.#password;
  }

  /** Whether the user holds this role (exact, case-sensitive). */
  hasRole(role: string): boolean {
    return this.roles.has(role);
  }

  /** Whether the user holds at least one of these roles. */
  hasAnyRole(...roles: readonly string[]): boolean {
    return roles.some((role) => this.roles.has(role));
  }

  /** Whether the user holds this authority (exact, case-sensitive). */
  hasAuthority(authority: string): boolean {
    return this.authorities.has(authority);
  }

  /** Whether the user holds at least one of these authorities. */
  hasAnyAuthority(...authorities: readonly string[]): boolean {
    return authorities.some((authority) => this.authorities.has(authority));
  }

  /** The user without its password. */
  toJSON(): {
    username: string;
    roles: string[];
    authorities: string[];
    authenticationMethod: string;
  } {
    return {
      username: this.username,
      roles: [...this.roles],
      authorities: [...this.authorities],
      authenticationMethod: this.authenticationMethod,
    };
  }

  /** @internal */
  [inspect.custom](): string {
    return `AuthenticatedUser ${inspect(this.toJSON())}`;
  }
}
