import { ConfigurationError } from '../core/errors.js';
import { User } from '../core/user.js';
import type { PasswordEncoder } from '../password/index.js';
import type { LoginThrottle } from '../throttle/login-throttle.js';
import { MemoryUserChangeNotifier } from '../stores/memory-user-changes.js';
import { MemoryUserRepository } from '../users/memory-user-repository.js';
import { rejectUnknown, type RepositoryAuthenticatorOptions } from './authenticator-options.js';
import { MEMORY_OPTIONS, type MemoryAuthenticatorOptions } from './memory-options.js';
import { RepositoryAuthenticator } from './repository-authenticator.js';

export type { VerifyCredentialsOptions } from './repository-authenticator.js';

/**
 * Users held in memory, authenticated by HTTP Basic (RFC 7617): a
 * {@link RepositoryAuthenticator} over a {@link MemoryUserRepository}, with every
 * protection it has (dummy hash for unknown users, bounded hashing, the
 * verified-credential cache, account states, events, deadlines). The users are fixed
 * at configuration time: once the first request was authenticated, neither users nor
 * encoder can change through the builder (a password upgrade replaces a user's hash).
 *
 * - Every failure gives `null` (never a throw) and an `authentication-failure` event
 *   with its reason; a success gives an `authentication-success` event. The one
 *   rejection: a password encoder call that passes `passwordEncoderTimeoutMs` gives
 *   a `DeadlineExceededError` (503 through `SecurityTransform`) and a
 *   `deadline-exceeded` event, never `null`, since the credential was not checked.
 * - When a login succeeds and `passwordEncoder.upgradeEncoding(stored)` is true, the
 *   password is re-encoded and the in-memory user replaced (Spring's
 *   `UserDetailsPasswordService`); `onPasswordUpgrade` lets the app persist it.
 * - Usernames are compared exactly, code unit by code unit: no case folding and no
 *   Unicode normalization (`é` precomposed and decomposed are different users).
 *
 * @example
 * ```ts
 * import { AuthenticationManager, ScryptPasswordEncoder, User } from 'portcullis';
 * const encoder = new ScryptPasswordEncoder();
 * const auth = AuthenticationManager.inMemoryAuthentication()
 *   .passwordEncoder(encoder)
 *   .withUser(User.withEncodedPassword('admin', await encoder.encode('s3cret')).withRoles(['ADMIN']));
 * const user = await auth.authenticate(request); // AuthenticatedUser | null
 * ```
 */
export class MemoryAuthenticator extends RepositoryAuthenticator<MemoryUserRepository> {
  /** @param options - everything the builder methods set, as one object */
  constructor(options: MemoryAuthenticatorOptions = {}) {
    super(toRepositoryOptions(options));
    if (options.users !== undefined) {
      for (const user of options.users) this.withUser(user);
    }
  }

  /** Sets the encoder that checks passwords against the users' encoded passwords. */
  passwordEncoder(encoder: PasswordEncoder): this {
    this.setPasswordEncoder(encoder);
    return this;
  }

  /**
   * Sets the login throttle, or `false` for none, before the first authentication
   * (see `PasswordAuthenticatorOptions.throttle`; default: a new `LoginThrottle()`).
   */
  throttle(throttle: LoginThrottle | false): this {
    this.setThrottle(throttle);
    return this;
  }

  /** Adds a user; its username must be new and must not contain `:` (RFC 7617 §2). */
  withUser(user: User): this {
    this.requireConfigurable('users');
    if (!(user instanceof User)) throw new ConfigurationError('users', 'must be User instances');
    if (user.username.includes(':')) {
      throw new ConfigurationError('users', 'a username must not contain ":" (RFC 7617)');
    }
    const repository = this.repository;
    if (repository.userExists(user.username)) {
      throw new ConfigurationError('users', `duplicate username ${JSON.stringify(user.username)}`);
    }
    repository.createUser(user);
    return this;
  }

  /** The user with this exact username, or `null` (after an upgrade, with the new hash). */
  findUser(username: string): User | null {
    return this.repository.findByUsername(username);
  }

  /** The first user's hash stands in for a dummy hash the encoder cannot make. */
  protected override fallbackPasswordHash(): string | undefined {
    const first = this.repository.users().next();
    return first.done === true ? undefined : first.value.password;
  }

  /**
   * The repository holding the users. Its `updateUser`, `deleteUser` and
   * `changePassword` announce the change, so this authenticator (and every other on
   * the same `userChanges`) forgets the user's cached credentials at once.
   */
  get repository(): MemoryUserRepository {
    return this.users;
  }
}

/** Validates the in-memory options and turns them into a repository authenticator's. */
function toRepositoryOptions(
  options: MemoryAuthenticatorOptions,
): RepositoryAuthenticatorOptions<MemoryUserRepository> {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  rejectUnknown('MemoryAuthenticator', options, MEMORY_OPTIONS, '');
  const users: unknown = options.users;
  if (
    users !== undefined &&
    (typeof users !== 'object' || users === null || !(Symbol.iterator in users))
  ) {
    throw new ConfigurationError('users', 'must be an array of User');
  }
  // The encoder may come later through the builder: checked at the first request. The
  // users are added one by one by the constructor, each checked. The repository
  // announces its changes to the authenticator's notifier, so `repository.updateUser`
  // drops the user's cached credentials at once.
  const userChanges = options.userChanges ?? new MemoryUserChangeNotifier();
  return {
    ...options,
    userChanges,
    users: new MemoryUserRepository([], { userChanges }),
  } as RepositoryAuthenticatorOptions<MemoryUserRepository>;
}
