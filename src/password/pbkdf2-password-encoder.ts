import { pbkdf2, randomBytes } from 'node:crypto';
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

/** The HMAC digests {@link Pbkdf2PasswordEncoder} supports. */
export type Pbkdf2Algorithm = 'sha256' | 'sha512';

/** Options of {@link Pbkdf2PasswordEncoder}. Defaults follow OWASP's Password Storage Cheat Sheet. */
export interface Pbkdf2PasswordEncoderOptions extends RawPasswordOptions {
  /** The HMAC digest, `'sha256'` or `'sha512'`. @defaultValue 'sha256' */
  readonly algorithm?: Pbkdf2Algorithm;
  /**
   * The iteration count.
   *
   * @defaultValue 600000 for SHA-256, 210000 for SHA-512 (OWASP's minimums)
   */
  readonly iterations?: number;
  /**
   * Length of the derived key in bytes, 16 to 256. A key longer than the digest
   * costs the server more and an attacker nothing.
   *
   * @defaultValue the digest length: 32 for SHA-256, 64 for SHA-512
   */
  readonly keyLength?: number;
  /** Length of the random salt in bytes, 16 to 256. @defaultValue 16 */
  readonly saltLength?: number;
  /**
   * The most work one hash may take, counted as iterations × digest blocks of the
   * key, for encoding and for verifying stored hashes: a stored hash claiming more
   * (`i=1000000000000`) never matches, so it cannot hang the server.
   *
   * @defaultValue 5000000 (about eight times the default's work)
   */
  readonly maxIterations?: number;
  /**
   * Allows fewer iterations than OWASP's minimum (for tests). Never use it in production.
   *
   * @defaultValue false
   */
  readonly dangerouslyAllowWeakParameters?: boolean;
}

const DIGEST_LENGTH = { sha256: 32, sha512: 64 } as const;
const OWASP_ITERATIONS = { sha256: 600_000, sha512: 210_000 } as const;
const IDS = { sha256: 'pbkdf2-sha256', sha512: 'pbkdf2-sha512' } as const;

interface StoredPbkdf2 {
  readonly algorithm: Pbkdf2Algorithm;
  readonly iterations: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/**
 * Hashes passwords with PBKDF2-HMAC-SHA-256 or -SHA-512 (RFC 8018) from
 * `node:crypto`, off the event loop. The output is a PHC string carrying its
 * parameters, `$pbkdf2-sha256$i=600000$<salt>$<key>` (unpadded base64), so hashes
 * made with older settings (or the other digest) still verify and
 * {@link Pbkdf2PasswordEncoder.upgradeEncoding} tells when to re-hash. Prefer
 * Argon2id or scrypt unless FIPS-140 compliance requires PBKDF2.
 *
 * Not compatible with Spring Security's `Pbkdf2PasswordEncoder` format (hex, no
 * parameters). Comes from the core entry, `portcullis`.
 *
 * @example
 * ```ts
 * import { Pbkdf2PasswordEncoder } from 'portcullis';
 * const encoder = new Pbkdf2PasswordEncoder({ algorithm: 'sha512' }); // 210,000 iterations
 * const hash = await encoder.encode('s3cret'); // $pbkdf2-sha512$i=210000$…$…
 * ```
 */
export class Pbkdf2PasswordEncoder implements PasswordEncoder {
  readonly #algorithm: Pbkdf2Algorithm;
  readonly #iterations: number;
  readonly #keyLength: number;
  readonly #saltLength: number;
  readonly #maxIterations: number;
  readonly #maxPasswordLength: number;

  constructor(options: Pbkdf2PasswordEncoderOptions = {}) {
    const algorithm: unknown = options.algorithm ?? 'sha256';
    if (algorithm !== 'sha256' && algorithm !== 'sha512') {
      throw new ConfigurationError('algorithm', "must be 'sha256' or 'sha512'");
    }
    this.#algorithm = algorithm;
    const minimum = OWASP_ITERATIONS[algorithm];
    this.#iterations = requireInteger('iterations', options.iterations ?? minimum, 1, 2 ** 31 - 1);
    this.#keyLength = requireInteger(
      'keyLength',
      options.keyLength ?? DIGEST_LENGTH[algorithm],
      16,
      256,
    );
    this.#saltLength = requireInteger('saltLength', options.saltLength ?? 16, 16, 256);
    this.#maxIterations = requireInteger(
      'maxIterations',
      options.maxIterations ?? 5_000_000,
      1,
      2 ** 31 - 1,
    );
    this.#maxPasswordLength = maxPasswordLengthOption(options.maxPasswordLength);
    if (work(algorithm, this.#iterations, this.#keyLength) > this.#maxIterations) {
      throw new ConfigurationError(
        'maxIterations',
        'must be at least iterations × ceil(keyLength / digest length)',
      );
    }
    if (options.dangerouslyAllowWeakParameters !== true && this.#iterations < minimum) {
      throw new ConfigurationError(
        'iterations',
        `must be at least ${minimum} for ${algorithm} (OWASP’s minimum); set dangerouslyAllowWeakParameters to allow fewer`,
      );
    }
  }

  /** Hashes a raw password with a fresh random salt; throws a {@link PasswordEncodingFailedError}. */
  async encode(raw: string): Promise<string> {
    const password = requirePassword(raw, this.#maxPasswordLength);
    const salt = randomBytes(this.#saltLength);
    let key: Buffer;
    try {
      key = await derive(password, salt, this.#iterations, this.#keyLength, this.#algorithm);
    } catch (error) {
      throw hashFailed('PBKDF2', error);
    }
    return formatPhc(IDS[this.#algorithm], [['i', this.#iterations]], salt, key);
  }

  /** Whether `raw` matches the stored hash; `false` for any malformed or out-of-range input. */
  async matches(raw: string, encoded: string): Promise<boolean> {
    if (!isAcceptablePassword(raw, this.#maxPasswordLength)) return false;
    const stored = this.#parse(encoded);
    if (!stored) return false;
    const { algorithm, iterations, salt, hash } = stored;
    return derivedKeyMatches(hash, () => derive(raw, salt, iterations, hash.length, algorithm));
  }

  /** Whether the stored hash is unparsable, uses another digest, or weaker parameters. */
  upgradeEncoding(encoded: string): boolean {
    const stored = this.#parse(encoded);
    return (
      !stored ||
      stored.algorithm !== this.#algorithm ||
      stored.iterations < this.#iterations ||
      stored.hash.length < this.#keyLength ||
      stored.salt.length < this.#saltLength
    );
  }

  #parse(encoded: unknown): StoredPbkdf2 | undefined {
    const phc = parsePhc(encoded);
    if (!phc || phc.version !== undefined) return undefined;
    const algorithm =
      phc.id === IDS.sha256 ? 'sha256' : phc.id === IDS.sha512 ? 'sha512' : undefined;
    const [iterations] = decimalParams(phc, ['i']) ?? [];
    if (algorithm === undefined || iterations === undefined) return undefined;
    const acceptable =
      iterations >= 1 &&
      phc.salt.length >= 8 &&
      phc.hash.length >= 16 &&
      phc.hash.length <= 256 &&
      work(algorithm, iterations, phc.hash.length) <= this.#maxIterations;
    return acceptable ? { algorithm, iterations, salt: phc.salt, hash: phc.hash } : undefined;
  }
}

/** PBKDF2 runs the iterations once per digest-sized block of the key. */
function work(algorithm: Pbkdf2Algorithm, iterations: number, keyLength: number): number {
  return iterations * Math.ceil(keyLength / DIGEST_LENGTH[algorithm]);
}

function derive(
  password: string,
  salt: Buffer,
  iterations: number,
  keyLength: number,
  algorithm: Pbkdf2Algorithm,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    pbkdf2(password, salt, iterations, keyLength, algorithm, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}
