import { createHash, timingSafeEqual } from 'node:crypto';
import type { PasswordEncoder, RawPasswordOptions } from './password-encoder.js';
import { isAcceptablePassword, maxPasswordLengthOption, requirePassword } from './raw-password.js';

/** Options of {@link NoOpPasswordEncoder}. */
export type NoOpPasswordEncoderOptions = RawPasswordOptions;

/**
 * Stores passwords as plain text. **For tests only**: anyone who reads the store
 * reads every password. It exists so tests and examples can use readable
 * fixtures; a {@link DelegatingPasswordEncoder} only accepts `{noop}` hashes when
 * this encoder is registered explicitly, and portcullis never registers it by default.
 *
 * `matches` is still constant-time: it compares SHA-256 digests of both strings
 * with `timingSafeEqual`, so neither the content nor the length of the stored
 * password leaks through an early return.
 *
 * Comes from the core entry, `portcullis`.
 *
 * @example
 * ```ts
 * // in a test
 * const encoder = new NoOpPasswordEncoder();
 * const user = User.withEncodedPassword('alice', await encoder.encode('alice-pw'));
 * ```
 */
export class NoOpPasswordEncoder implements PasswordEncoder {
  readonly #maxPasswordLength: number;

  constructor(options: NoOpPasswordEncoderOptions = {}) {
    this.#maxPasswordLength = maxPasswordLengthOption(options.maxPasswordLength);
  }

  /** Returns the raw password unchanged (after the checks every encoder makes). */
  encode(raw: string): Promise<string> {
    // A throw in the executor rejects the promise.
    return new Promise((resolve) => {
      resolve(requirePassword(raw, this.#maxPasswordLength));
    });
  }

  /** Constant-time equality of `raw` and `encoded`. */
  matches(raw: string, encoded: string): Promise<boolean> {
    if (!isAcceptablePassword(raw, this.#maxPasswordLength) || typeof encoded !== 'string') {
      return Promise.resolve(false);
    }
    return Promise.resolve(timingSafeEqual(digest(raw), digest(encoded)));
  }

  /** Always `false`: there is nothing to upgrade to. */
  upgradeEncoding(_encoded: string): boolean {
    return false;
  }
}

/** SHA-256 of the UTF-16 code units, so even lone surrogates stay distinct. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf16le').digest();
}
