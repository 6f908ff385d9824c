import type { User } from '../core/user.js';
import {
  AUTHENTICATOR_OPTIONS,
  type PasswordAuthenticatorOptions,
} from './authenticator-options.js';

export type { CredentialCacheOptions } from './authenticator-options.js';

/** Options of {@link MemoryAuthenticator}: those of every password authenticator, and the users. */
export interface MemoryAuthenticatorOptions extends PasswordAuthenticatorOptions {
  /**
   * The users; usernames must be unique and must not contain `:` (RFC 7617).
   * @defaultValue `[]`
   */
  readonly users?: Iterable<User>;
}

/** The option names of {@link MemoryAuthenticatorOptions}. @internal */
export const MEMORY_OPTIONS: ReadonlySet<string> = AUTHENTICATOR_OPTIONS;
