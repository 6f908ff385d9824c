import { randomBytes, scrypt } from 'node:crypto';
import { ConfigurationError } from '../core/errors.js';
import { requireInteger } from '../core/validate.js';
import type { PasswordEncoder, RawPasswordOptions } from './password-encoder.js';
import { decimalParams, derivedKeyMatches, formatPhc, parsePhc } from './phc.js';
import {
  hashFailed,
  isAcceptablePassword,
  maxPasswordLengthOption,
  requirePassword,
} from './raw-password.js';

/** Options of {@link ScryptPasswordEncoder}. Defaults follow OWASP's Password Storage Cheat Sheet. */
export interface ScryptPasswordEncoderOptions extends RawPasswordOptions {
  /**
   * The CPU/memory cost `N`, a power of two (written `ln=log2(N)` in the hash).
   *
   * @defaultValue 131072 (2^17)
   */
  readonly cost?: number;
  /** The block size `r`, 1 to 64. @defaultValue 8 */
  readonly blockSize?: number;
  /** The parallelization `p`, 1 to 16. @defaultValue 1 */
  readonly parallelization?: number;
  /** Length of the derived key in bytes, 16 to 256. @defaultValue 32 */
  readonly keyLength?: number;
  /** Length of the random salt in bytes, 16 to 256. @defaultValue 16 */
  readonly saltLength?: number;
  /**
   * The most memory (`128 · N · r` bytes) one hash may take, for encoding and for
   * verifying stored hashes: a stored hash claiming more never matches, so a
   * corrupt or hostile hash (`ln=40`) cannot exhaust memory. At least the
   * configured parameters' need.
   *
   * @defaultValue 268435456 (256 MiB, twice the default parameters' 128 MiB)
   */
  readonly maxMemory?: number;
  /**
   * Allows parameters weaker than OWASP's minimum (for tests, or hashes that must
   * stay cheap). Never use it in production.
   *
   * @defaultValue false
   */
  readonly dangerouslyAllowWeakParameters?: boolean;
}

/** OWASP's equivalent minimum configurations, as [log2 N, p] with r = 8. */
const OWASP_MINIMUMS = [
  [17, 1],
  [16, 2],
  [15, 3],
  [14, 5],
  [13, 10],
] as const;

/** The largest parallelization accepted, in options and in stored hashes. */
const MAX_PARALLELIZATION = 16;

interface StoredScrypt {
  readonly ln: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/**
 * Hashes passwords with scrypt (RFC 7914) from `node:crypto`, off the event loop.
 * The output is a PHC string carrying its parameters,
 * `$scrypt$ln=17,r=8,p=1$<salt>$<key>` (unpadded base64), so hashes made with
 * older parameters still verify and {@link ScryptPasswordEncoder.upgradeEncoding}
 * can tell when to re-hash. Defaults are OWASP's (N = 2^17, r = 8, p = 1: 128 MiB
 * and about a tenth of a second per hash); weaker parameters are refused unless
 * `dangerouslyAllowWeakParameters` is set.
 *
 * Comes from the core entry, `portcullis`.
 *
 * @example
 * ```ts
 * import { ScryptPasswordEncoder } from 'portcullis';
 * const encoder = new ScryptPasswordEncoder();
 * const hash = await encoder.encode('s3cret'); // $scrypt$ln=17,r=8,p=1$…$…
 * await encoder.matches('s3cret', hash); // true
 * ```
 */
export class ScryptPasswordEncoder implements PasswordEncoder {
  readonly #ln: number;
  readonly #r: number;
  readonly #p: number;
  readonly #keyLength: number;
  readonly #saltLength: number;
  readonly #maxMemory: number;
  readonly #maxPasswordLength: number;

  constructor(options: ScryptPasswordEncoderOptions = {}) {
    const cost = requireInteger('cost', options.cost ?? 2 ** 17, 2, 2 ** 40);
    this.#ln = Math.log2(cost);
    if (!Number.isInteger(this.#ln)) throw new ConfigurationError('cost', 'must be a power of two');
    this.#r = requireInteger('blockSize', options.blockSize ?? 8, 1, 64);
    this.#p = requireInteger(
      'parallelization',
      options.parallelization ?? 1,
      1,
      MAX_PARALLELIZATION,
    );
    this.#keyLength = requireInteger('keyLength', options.keyLength ?? 32, 16, 256);
    this.#saltLength = requireInteger('saltLength', options.saltLength ?? 16, 16, 256);
    this.#maxMemory = requireInteger('maxMemory', options.maxMemory ?? 2 ** 28, 2 ** 20, 2 ** 40);
    this.#maxPasswordLength = maxPasswordLengthOption(options.maxPasswordLength);
    if (memory(this.#ln, this.#r) > this.#maxMemory) {
      throw new ConfigurationError('maxMemory', 'must be at least 128 · cost · blockSize bytes');
    }
    if (
      options.dangerouslyAllowWeakParameters !== true &&
      !meetsOwaspMinimum(this.#ln, this.#r, this.#p)
    ) {
      throw new ConfigurationError(
        'cost',
        'cost, blockSize and parallelization are weaker than OWASP’s minimum (N = 2^17, r = 8, p = 1 or an equivalent); set dangerouslyAllowWeakParameters to allow it',
      );
    }
  }

  /** Hashes a raw password with a fresh random salt; throws a {@link PasswordEncodingFailedError}. */
  async encode(raw: string): Promise<string> {
    const password = requirePassword(raw, this.#maxPasswordLength);
    const salt = randomBytes(this.#saltLength);
    let key: Buffer;
    try {
      key = await derive(password, salt, this.#keyLength, this.#ln, this.#r, this.#p);
    } catch (error) {
      throw hashFailed('scrypt', error);
    }
    const params = [
      ['ln', this.#ln],
      ['r', this.#r],
      ['p', this.#p],
    ] as const;
    return formatPhc('scrypt', params, salt, key);
  }

  /** Whether `raw` matches the stored hash; `false` for any malformed or out-of-range input. */
  async matches(raw: string, encoded: string): Promise<boolean> {
    if (!isAcceptablePassword(raw, this.#maxPasswordLength)) return false;
    const stored = this.#parse(encoded);
    if (!stored) return false;
    const { salt, hash, ln, r, p } = stored;
    return derivedKeyMatches(hash, () => derive(raw, salt, hash.length, ln, r, p));
  }

  /** Whether the stored hash is unparsable or uses weaker parameters than configured. */
  upgradeEncoding(encoded: string): boolean {
    const stored = this.#parse(encoded);
    return (
      !stored ||
      stored.ln < this.#ln ||
      stored.r < this.#r ||
      stored.p < this.#p ||
      stored.hash.length < this.#keyLength ||
      stored.salt.length < this.#saltLength
    );
  }

  #parse(encoded: unknown): StoredScrypt | undefined {
    const phc = parsePhc(encoded);
    if (phc?.id !== 'scrypt' || phc.version !== undefined) return undefined;
    const [ln, r, p] = decimalParams(phc, ['ln', 'r', 'p']) ?? [];
    if (ln === undefined || r === undefined || p === undefined) return undefined;
    const acceptable =
      ln >= 1 &&
      ln <= 40 &&
      r >= 1 &&
      p >= 1 &&
      p <= MAX_PARALLELIZATION &&
      memory(ln, r) <= this.#maxMemory &&
      phc.salt.length >= 8 &&
      phc.hash.length >= 16 &&
      phc.hash.length <= 256;
    return acceptable ? { ln, r, p, salt: phc.salt, hash: phc.hash } : undefined;
  }
}

function memory(ln: number, r: number): number {
  return 128 * 2 ** ln * r;
}

/** Whether N, r, p are at least one of OWASP's equivalent minimum configurations. */
function meetsOwaspMinimum(ln: number, r: number, p: number): boolean {
  return r >= 8 && OWASP_MINIMUMS.some(([minLn, minP]) => ln >= minLn && p >= minP);
}

/** scrypt on the thread pool, with `maxmem` raised to what N, r, p need (OpenSSL's formula). */
function derive(
  password: string,
  salt: Buffer,
  keyLength: number,
  ln: number,
  r: number,
  p: number,
): Promise<Buffer> {
  const N = 2 ** ln;
  const maxmem = 128 * r * (N + p + 2);
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, { N, r, p, maxmem }, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}
