import { PortcullisError } from '../core/errors.js';

/**
 * The stable codes of {@link UserRepositoryError}, one per failure:
 * `ERR_USER_EXISTS` (creating a username that is taken), `ERR_USER_NOT_FOUND`
 * (updating one that is not there), `ERR_USER_RECORD_MALFORMED` (a stored row that
 * is not a valid user).
 */
export type UserRepositoryErrorCode =
  'ERR_USER_EXISTS' | 'ERR_USER_NOT_FOUND' | 'ERR_USER_RECORD_MALFORMED';

/**
 * A user repository refused a change, or found a stored user it cannot read. The
 * message names the username and, for a malformed record, the column; never a
 * password or a stored hash.
 *
 * @example
 * ```ts
 * try { await users.createUser(user); }
 * catch (error) { if (error instanceof UserRepositoryError && error.code === 'ERR_USER_EXISTS') … }
 * ```
 */
export class UserRepositoryError extends PortcullisError {
  /** What went wrong; stable, branch on it. */
  override readonly code: UserRepositoryErrorCode;
  /** The column or field that was malformed, for `ERR_USER_RECORD_MALFORMED`. */
  readonly field: string | undefined;

  constructor(
    code: UserRepositoryErrorCode,
    username: string,
    field?: string,
    options?: ErrorOptions,
  ) {
    const who = JSON.stringify(username.length > 128 ? `${username.slice(0, 128)}…` : username);
    const what =
      code === 'ERR_USER_EXISTS'
        ? `a user named ${who} already exists`
        : code === 'ERR_USER_NOT_FOUND'
          ? `no user named ${who}`
          : `the stored user ${who} is malformed (${field ?? 'record'})`;
    super(what, options);
    this.code = code;
    this.field = field;
  }
}
