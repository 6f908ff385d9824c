import { ConfigurationError } from '../core/errors.js';
import { User, accountRefusal } from '../core/user.js';
import { requireInteger } from '../core/validate.js';
import { MemoryStoreFullError } from '../stores/errors.js';
import type { UserRepository } from '../users/repository.js';
import type { OAuth2MapperContext, OAuth2UserMapper } from './routes/options.js';
import type { OAuth2User } from './types.js';

/**
 * Where the links between provider accounts (`provider` + `subject`) and the
 * application's users are kept: the account-linking half of OAuth2 login. A provider
 * account is linked to one user; a user may have several provider accounts.
 * `MemoryOAuth2AccountRepository` keeps them in memory, `SqlOAuth2AccountRepository`
 * in the `oauth2_accounts` table of the SQL schema.
 */
export interface OAuth2AccountRepository {
  /** The username linked to this provider account, or `null` when it is not linked. */
  findLinkedUsername(provider: string, subject: string): string | null | Promise<string | null>;
  /**
   * Links the provider account to `username`, atomically: when it is already linked
   * (two first logins at once, on two instances), the first link stays and its
   * username is answered. Answers the username the account is linked to.
   */
  linkProviderAccount(
    provider: string,
    subject: string,
    username: string,
  ): string | Promise<string>;
}

/**
 * Creates the application's user for a provider account seen for the first time, or
 * answers `null` to refuse it. The user must already be stored where the account
 * repository will find it (e.g. `ManagedUserRepository.createUser`) before it is
 * answered.
 */
export type OAuth2UserCreator = (
  user: OAuth2User,
  context: OAuth2MapperContext,
) => User | null | Promise<User | null>;

/** Options of {@link accountLinkingMapper}. */
export interface AccountLinkingOptions {
  /** The links between provider accounts and users. */
  readonly accounts: OAuth2AccountRepository;
  /** The users themselves. */
  readonly users: UserRepository;
  /**
   * Creates the user of a provider account seen for the first time; without it, only
   * accounts already linked may log in (sign-up is refused). Two first logins of one
   * provider account at once (on two instances) may both call it: the first link
   * wins, both logins end on its user, and the other created user is left unlinked.
   */
  readonly createUser?: OAuth2UserCreator;
}

/**
 * An OAuth2 user mapper (the `mapper` of `oauth2Login`) that finds, or creates and
 * links, the application's user of a provider account — keyed on the provider and its
 * stable subject, never on an email address (which a provider may not have verified,
 * and which can change hands). A user whose account is disabled, locked or expired is
 * refused, as the password login refuses it.
 *
 * @example
 * ```ts
 * oauth2Login({
 *   repository: clients,
 *   sessions,
 *   mapper: accountLinkingMapper({
 *     accounts: new MemoryOAuth2AccountRepository(),
 *     users,
 *     createUser: async (profile) => {
 *       const user = new User(`${profile.provider}:${profile.subject}`, '', ['USER']);
 *       await users.createUser(user);
 *       return user;
 *     },
 *   }),
 * });
 * ```
 */
export function accountLinkingMapper(options: AccountLinkingOptions): OAuth2UserMapper {
  const { accounts, users, createUser } = options;
  if (
    typeof (accounts as Partial<OAuth2AccountRepository> | null)?.findLinkedUsername !==
      'function' ||
    typeof accounts.linkProviderAccount !== 'function'
  ) {
    throw new ConfigurationError('accounts', 'must be an OAuth2AccountRepository');
  }
  if (typeof (users as Partial<UserRepository> | null)?.findByUsername !== 'function') {
    throw new ConfigurationError('users', 'must be a UserRepository');
  }
  if (createUser !== undefined && typeof createUser !== 'function') {
    throw new ConfigurationError('createUser', 'must be a function');
  }
  const find = async (username: unknown): Promise<User | null> =>
    typeof username === 'string' ? usable(await users.findByUsername(username)) : null;
  return async (profile, context) => {
    const { provider, subject } = profile;
    // `unknown`: a repository in JavaScript may answer `undefined` for "not linked".
    const linked: unknown = await accounts.findLinkedUsername(provider, subject);
    // A link whose user is gone is refused, never re-created under another name.
    if (linked !== null && linked !== undefined) return find(linked);
    if (createUser === undefined) return null;
    const created = await createUser(profile, context);
    if (!(created instanceof User)) return null;
    const username = await accounts.linkProviderAccount(provider, subject, created.username);
    // Another login linked this provider account first: its user is the one.
    return username === created.username ? usable(created) : find(username);
  };
}

/** The user when its account may log in; `null` (refused) otherwise. */
function usable(user: unknown): User | null {
  if (!(user instanceof User)) return null;
  return accountRefusal(user, { credentials: false }) === undefined ? user : null;
}

/** Options of {@link MemoryOAuth2AccountRepository}. */
export interface MemoryOAuth2AccountRepositoryOptions {
  /** The most links kept. @defaultValue `100_000` */
  readonly maxLinks?: number;
}

/** The links of provider accounts to users, in memory (one process; a restart forgets them). */
export class MemoryOAuth2AccountRepository implements OAuth2AccountRepository {
  readonly #links = new Map<string, string>();
  readonly #maxLinks: number;

  constructor(options: MemoryOAuth2AccountRepositoryOptions = {}) {
    this.#maxLinks = requireInteger('maxLinks', options.maxLinks ?? 100_000, 1, 100_000_000);
  }

  findLinkedUsername(provider: string, subject: string): string | null {
    return this.#links.get(key(provider, subject)) ?? null;
  }

  linkProviderAccount(provider: string, subject: string, username: string): string {
    const k = key(provider, subject);
    const existing = this.#links.get(k);
    if (existing !== undefined) return existing;
    if (this.#links.size >= this.#maxLinks) {
      throw new MemoryStoreFullError('memory OAuth2 account repository', this.#maxLinks);
    }
    this.#links.set(k, username);
    return username;
  }
}

/** One key per provider account: the provider's length first, so no pair can forge another. */
function key(provider: string, subject: string): string {
  return `${provider.length}:${provider}:${subject}`;
}
