import { inspect } from 'node:util';
import { ImmutableSet } from '../lib/immutable-set.js';
import { requireName, requireNames } from './validate.js';
import type { AuthenticationFailureReason } from './events.js';

/**
 * The state of an account (Spring's `enabled`, `accountNonLocked`,
 * `accountNonExpired`, `credentialsNonExpired`, in positive form). A user whose
 * password matched is refused when it is disabled, locked or expired, each with its
 * own failure reason; a wrong password is refused the same way for every account, so
 * the state of an account is never told to someone who does not know its password.
 */
export interface AccountState {
  /** Whether the account may log in at all. @defaultValue `true` */
  readonly enabled: boolean;
  /** Whether the account is locked (e.g. after too many failures). @defaultValue `false` */
  readonly locked: boolean;
  /** Whether the account has expired. @defaultValue `false` */
  readonly accountExpired: boolean;
  /** Whether the password has expired and must be changed. @defaultValue `false` */
  readonly credentialsExpired: boolean;
}

const ACTIVE: AccountState = Object.freeze({
  enabled: true,
  locked: false,
  accountExpired: false,
  credentialsExpired: false,
});

/**
 * An account known to an authenticator: a username, the *encoded* password, two
 * separate sets, roles and authorities, and the account's state
 * ({@link AccountState}: enabled, not locked, not expired by default). Immutable:
 * the builders return a new user, keeping everything they do not change.
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
  /** Whether the account may log in at all (default `true`). */
  readonly enabled: boolean;
  /** Whether the account is locked (default `false`). */
  readonly locked: boolean;
  /** Whether the account has expired (default `false`). */
  readonly accountExpired: boolean;
  /** Whether the password has expired (default `false`). */
  readonly credentialsExpired: boolean;
  readonly #password: string;

  /**
   * @param username - the login name, a non-empty string without control characters
   * @param encodedPassword - the password as a {@link PasswordEncoder} encoded it; never a raw password
   * @param state - the account's state; what is left out keeps its default
   */
  constructor(
    username: string,
    encodedPassword: string,
    roles: Iterable<string> = [],
    authorities: Iterable<string> = [],
    state: Partial<AccountState> = ACTIVE,
  ) {
    this.username = requireName('username', username);
    if (typeof encodedPassword !== 'string') {
      throw new TypeError('password: must be a string (the encoded password)');
    }
    this.#password = encodedPassword;
    this.roles = new ImmutableSet(requireNames('roles', roles));
    this.authorities = new ImmutableSet(requireNames('authorities', authorities));
    this.enabled = flag(state, 'enabled');
    this.locked = flag(state, 'locked');
    this.accountExpired = flag(state, 'accountExpired');
    this.credentialsExpired = flag(state, 'credentialsExpired');
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
    return new User(this.username, this.#password, roles, this.authorities, this.accountState);
  }

  /** A new user with these authorities instead of the current ones. */
  withAuthorities(authorities: Iterable<string>): User {
    return new User(this.username, this.#password, this.roles, authorities, this.accountState);
  }

  /** A new user with another encoded password, e.g. after a password upgrade. */
  withEncodedPassword(encodedPassword: string): User {
    return new User(
      this.username,
      encodedPassword,
      this.roles,
      this.authorities,
      this.accountState,
    );
  }

  /**
   * A new user with this account state; what is left out keeps its current value.
   *
   * @example
   * ```ts
   * const locked = user.withAccountState({ locked: true });
   * ```
   */
  withAccountState(state: Partial<AccountState>): User {
    if (typeof state !== 'object' || (state as unknown) === null) {
      throw new TypeError('state: must be an object');
    }
    return new User(this.username, this.#password, this.roles, this.authorities, {
      ...this.accountState,
      ...state,
    });
  }

  /** The account's state as one object. */
  get accountState(): AccountState {
    return {
      enabled: this.enabled,
      locked: this.locked,
      accountExpired: this.accountExpired,
      credentialsExpired: this.credentialsExpired,
    };
  }

  /** The user without its password. */
  toJSON(): { username: string; roles: string[]; authorities: string[] } {
    return { username: this.username, roles: [...this.roles], authorities: [...this.authorities] };
  }

  /** @internal */
  [inspect.custom](): string {
    return `User ${inspect({ ...this.toJSON(), ...this.accountState })}`;
  }
}

function flag(state: Partial<AccountState>, name: keyof AccountState): boolean {
  const value = (state as Partial<Record<keyof AccountState, unknown>>)[name];
  if (value === undefined) return ACTIVE[name];
  if (typeof value !== 'boolean') throw new TypeError(`${name}: must be a boolean`);
  return value;
}

/**
 * Why an account may not be used now, as the failure reason of its event, or
 * `undefined` when it may: locked, disabled, expired, or (unless `credentials` is
 * `false`, for what proves no password: a session, an OAuth2 login) its password
 * expired.
 *
 * @internal
 */
export function accountRefusal(
  user: User,
  options: { readonly credentials?: boolean } = {},
): AuthenticationFailureReason | undefined {
  if (user.locked) return 'account-locked';
  if (!user.enabled) return 'account-disabled';
  if (user.accountExpired) return 'account-expired';
  if (options.credentials !== false && user.credentialsExpired) return 'credentials-expired';
  return undefined;
}
