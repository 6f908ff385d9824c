import { PortcullisError } from '../core/errors.js';

/**
 * Why a user repository refused a change or could not read a stored user:
 * `user-exists` (creating a username that is taken), `user-not-found` (updating one
 * that is not there), `malformed-record` (a stored row that is not a valid user).
 */
export type UserRepositoryErrorReason = 'user-exists' | 'user-not-found' | 'malformed-record';

/**
 * A user repository refused a change, or found a stored user it cannot read. The
 * message names the username and, for a malformed record, the column; never a
 * password or a stored hash.
 *
 * @example
 * ```ts
 * try { await users.createUser(user); }
 * catch (error) { if (error instanceof UserRepositoryError && error.reason === 'user-exists') … }
 * ```
 */
export class UserRepositoryError extends PortcullisError {
  override readonly code = 'ERR_USER_REPOSITORY';
  /** What went wrong. */
  readonly reason: UserRepositoryErrorReason;
  /** The column or field that was malformed, for `malformed-record`. */
  readonly field: string | undefined;

  constructor(
    reason: UserRepositoryErrorReason,
    username: string,
    field?: string,
    options?: ErrorOptions,
  ) {
    const who = JSON.stringify(username.length > 128 ? `${username.slice(0, 128)}…` : username);
    const what =
      reason === 'user-exists'
        ? `a user named ${who} already exists`
        : reason === 'user-not-found'
          ? `no user named ${who}`
          : `the stored user ${who} is malformed (${field ?? 'record'})`;
    super(what, options);
    this.reason = reason;
    this.field = field;
  }
}
