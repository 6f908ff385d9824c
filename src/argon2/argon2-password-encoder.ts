import { randomBytes, timingSafeEqual } from 'node:crypto';
import { argon2d, argon2i, argon2id, hash } from 'argon2';
import type { PasswordEncoder } from '../password/password-encoder.js';
import { decimalParamSet, formatPhc, parsePhc } from '../password/phc.js';
import { hashFailed, isAcceptablePassword, requirePassword } from '../password/raw-password.js';
import {
  MAX_PARALLELISM,
  argon2Settings,
  type Argon2PasswordEncoderOptions,
  type Argon2Settings,
} from './argon2-options.js';

const TYPES = { argon2d, argon2i, argon2id } as const;
type Argon2Id = keyof typeof TYPES;

/** Argon2 version 1.3 (0x13), the current one. */
const VERSION = 0x13;

interface StoredArgon2 {
  readonly id: Argon2Id;
  readonly version: number;
  readonly m: number;
  readonly t: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/**
 * Hashes passwords with Argon2id (RFC 9106) through the `argon2` package, on a
 * native worker thread. The output is the standard PHC string
 * `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>` (parameters in the reference
 * implementation's order, so libargon2, libsodium, PHP and Spring Security read it).
 *
 * Defaults are OWASP's recommended configuration, m = 19 MiB, t = 2, p = 1: as
 * strong as OWASP's other equivalent choices, and cheap enough (tens of
 * milliseconds, 19 MiB per login) that a server can verify many logins at once.
 * Raise `memoryCost` when the hardware allows. Weaker parameters are refused unless
 * `dangerouslyAllowWeakParameters` is set.
 *
 * `matches` also verifies Argon2i, Argon2d and version 0x10 hashes and the
 * `argon2` package's `m,p,t` parameter order (for migrations); `upgradeEncoding`
 * asks for all of those to be re-hashed. Stored hashes beyond `maxMemoryCost`,
 * `maxTimeCost` or 16 lanes never match.
 *
 * Comes from `portcullis/argon2` (needs the `argon2` package, an optional
 * dependency installed by default).
 *
 * @example
 * ```ts
 * import { Argon2PasswordEncoder } from 'portcullis/argon2';
 * const encoder = new Argon2PasswordEncoder();
 * const stored = await encoder.encode('s3cret'); // $argon2id$v=19$m=19456,t=2,p=1$…$…
 * await encoder.matches('s3cret', stored); // true
 * encoder.upgradeEncoding(stored); // false
 * ```
 */
export class Argon2PasswordEncoder implements PasswordEncoder {
  readonly #settings: Argon2Settings;

  constructor(options: Argon2PasswordEncoderOptions = {}) {
    this.#settings = argon2Settings(options);
  }

  /** Hashes a raw password with a fresh random salt; throws a {@link PasswordEncodingFailedError}. */
  async encode(raw: string): Promise<string> {
    const { memoryCost, timeCost, parallelism, hashLength, saltLength } = this.#settings;
    const password = requirePassword(raw, this.#settings.maxPasswordLength);
    const salt = randomBytes(saltLength);
    let tag: Buffer;
    try {
      tag = await hash(password, {
        raw: true,
        type: argon2id,
        version: VERSION,
        memoryCost,
        timeCost,
        parallelism,
        hashLength,
        salt,
      });
    } catch (error) {
      throw hashFailed('Argon2', error);
    }
    const params = [
      ['m', memoryCost],
      ['t', timeCost],
      ['p', parallelism],
    ] as const;
    return formatPhc('argon2id', params, salt, tag, VERSION);
  }

  /** Whether `raw` matches the stored hash; `false` for any malformed or out-of-range input. */
  async matches(raw: string, encoded: string): Promise<boolean> {
    if (!isAcceptablePassword(raw, this.#settings.maxPasswordLength)) return false;
    const stored = this.#parse(encoded);
    if (!stored) return false;
    try {
      const tag = await hash(raw, {
        raw: true,
        type: TYPES[stored.id],
        version: stored.version,
        memoryCost: stored.m,
        timeCost: stored.t,
        parallelism: stored.p,
        hashLength: stored.hash.length,
        salt: stored.salt,
      });
      return timingSafeEqual(tag, stored.hash);
    } catch {
      return false;
    }
  }

  /**
   * Whether the stored hash is unparsable, not Argon2id version 0x13, or uses a
   * smaller memory cost, time cost, parallelism, hash or salt than configured.
   */
  upgradeEncoding(encoded: string): boolean {
    const stored = this.#parse(encoded);
    const current = this.#settings;
    return (
      !stored ||
      stored.id !== 'argon2id' ||
      stored.version !== VERSION ||
      stored.m < current.memoryCost ||
      stored.t < current.timeCost ||
      stored.p < current.parallelism ||
      stored.hash.length < current.hashLength ||
      stored.salt.length < current.saltLength
    );
  }

  #parse(encoded: unknown): StoredArgon2 | undefined {
    const phc = parsePhc(encoded);
    if (!phc || !Object.hasOwn(TYPES, phc.id)) return undefined;
    const version = phc.version ?? 0x10;
    const params = decimalParamSet(phc, ['m', 't', 'p']);
    const m = params?.get('m');
    const t = params?.get('t');
    const p = params?.get('p');
    if (m === undefined || t === undefined || p === undefined) return undefined;
    const acceptable =
      (version === 0x10 || version === VERSION) &&
      p >= 1 &&
      p <= MAX_PARALLELISM &&
      m >= 8 * p &&
      m <= this.#settings.maxMemoryCost &&
      t >= 1 &&
      t <= this.#settings.maxTimeCost &&
      phc.salt.length >= 8 &&
      phc.hash.length >= 16 &&
      phc.hash.length <= 256;
    const id = phc.id as Argon2Id;
    return acceptable ? { id, version, m, t, p, salt: phc.salt, hash: phc.hash } : undefined;
  }
}
