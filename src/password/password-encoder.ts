/**
 * Turns raw passwords into stored hashes and checks raw passwords against them.
 * Asynchronous: hashing runs off the event loop (the libuv thread pool for
 * `node:crypto`, a native worker for Argon2).
 *
 * Every implementation in portcullis follows the same contract:
 *
 * - `encode` gives a new self-describing hash (a fresh random salt each call) or
 *   throws a {@link PasswordEncodingFailedError};
 * - `matches` resolves `true` or `false` and never throws for bad input: a
 *   malformed, truncated or unknown stored hash, a non-string, or a raw password
 *   over the length cap all give `false`; comparisons are constant-time;
 * - `upgradeEncoding` tells, after a successful `matches`, whether the stored hash
 *   should be re-encoded with the current settings (weaker parameters, another
 *   algorithm, or an unparsable hash).
 *
 * @example
 * ```ts
 * import { ScryptPasswordEncoder } from 'portcullis';
 * const encoder = new ScryptPasswordEncoder();
 * const stored = await encoder.encode('correct horse battery staple');
 * if (await encoder.matches(input, stored) && encoder.upgradeEncoding(stored)) {
 *   await saveHash(await encoder.encode(input));
 * }
 * ```
 */
export interface PasswordEncoder {
  /** Hashes a raw password with a fresh random salt. */
  encode(raw: string): Promise<string>;
  /** Whether `raw` is the password `encoded` was made from; `false` for any malformed input. */
  matches(raw: string, encoded: string): Promise<boolean>;
  /** Whether `encoded` should be re-encoded with the current settings. */
  upgradeEncoding(encoded: string): boolean;
}

/** The options every password encoder of portcullis accepts. */
export interface RawPasswordOptions {
  /**
   * The longest raw password accepted, in UTF-16 code units (`string.length`),
   * from 1 to 1,048,576. Longer passwords never match and cannot be encoded, so
   * a client cannot make the server hash megabytes per request.
   *
   * @defaultValue 4096
   */
  readonly maxPasswordLength?: number;
}
