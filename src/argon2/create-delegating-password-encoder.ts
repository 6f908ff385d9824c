import type { SecurityEvents } from '../core/events.js';
import { DelegatingPasswordEncoder } from '../password/delegating-password-encoder.js';
import {
  Pbkdf2PasswordEncoder,
  type Pbkdf2PasswordEncoderOptions,
} from '../password/pbkdf2-password-encoder.js';
import {
  ScryptPasswordEncoder,
  type ScryptPasswordEncoderOptions,
} from '../password/scrypt-password-encoder.js';
import type { Argon2PasswordEncoderOptions } from './argon2-options.js';
import { Argon2PasswordEncoder } from './argon2-password-encoder.js';

/** Options of {@link createDelegatingPasswordEncoder}: the settings of each encoder. */
export interface CreateDelegatingPasswordEncoderOptions {
  /** Settings of the `argon2` encoder (the default one). @defaultValue OWASP's, see {@link Argon2PasswordEncoderOptions} */
  readonly argon2?: Argon2PasswordEncoderOptions;
  /** Settings of the `scrypt` encoder. @defaultValue OWASP's, see `ScryptPasswordEncoderOptions` */
  readonly scrypt?: ScryptPasswordEncoderOptions;
  /** Settings of the `pbkdf2` encoder. @defaultValue OWASP's, see `Pbkdf2PasswordEncoderOptions` */
  readonly pbkdf2?: Pbkdf2PasswordEncoderOptions;
  /** Where `unknown-password-encoder` events go. @defaultValue securityEvents */
  readonly events?: SecurityEvents;
}

/**
 * The recommended {@link DelegatingPasswordEncoder}, shaped like Spring Security's
 * `PasswordEncoderFactories.createDelegatingPasswordEncoder()`: new hashes are
 * `{argon2}` (Argon2id), and `{scrypt}` and `{pbkdf2}` hashes still verify (and ask
 * for an upgrade). `{noop}` is **not** registered: plain-text hashes never match.
 *
 * Spring's `{argon2}` hashes verify as they are; its `{scrypt}` and `{pbkdf2}`
 * formats differ from portcullis' PHC strings and do not.
 *
 * Comes from `portcullis/argon2`.
 *
 * @example
 * ```ts
 * import { createDelegatingPasswordEncoder } from 'portcullis/argon2';
 * const encoder = createDelegatingPasswordEncoder();
 * const stored = await encoder.encode('s3cret'); // {argon2}$argon2id$v=19$m=19456,t=2,p=1$…
 * if (await encoder.matches(input, stored) && encoder.upgradeEncoding(stored)) {
 *   await saveHash(await encoder.encode(input));
 * }
 * ```
 */
export function createDelegatingPasswordEncoder(
  options: CreateDelegatingPasswordEncoderOptions = {},
): DelegatingPasswordEncoder {
  return new DelegatingPasswordEncoder({
    encoders: {
      argon2: new Argon2PasswordEncoder(options.argon2),
      scrypt: new ScryptPasswordEncoder(options.scrypt),
      pbkdf2: new Pbkdf2PasswordEncoder(options.pbkdf2),
    },
    defaultId: 'argon2',
    ...(options.events ? { events: options.events } : {}),
  });
}
