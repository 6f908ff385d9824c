import { ConfigurationError } from '../core/errors.js';
import { requireInteger } from '../core/validate.js';
import type { RawPasswordOptions } from '../password/password-encoder.js';
import { maxPasswordLengthOption } from '../password/raw-password.js';

/**
 * Options of {@link Argon2PasswordEncoder}. Defaults are OWASP's recommended
 * Argon2id configuration (m = 19 MiB, t = 2, p = 1).
 */
export interface Argon2PasswordEncoderOptions extends RawPasswordOptions {
  /** Memory in KiB, at least 8 × parallelism. @defaultValue 19456 (19 MiB) */
  readonly memoryCost?: number;
  /** Number of passes over the memory. @defaultValue 2 */
  readonly timeCost?: number;
  /** Number of lanes (and threads), 1 to 16. @defaultValue 1 */
  readonly parallelism?: number;
  /** Length of the tag in bytes, 16 to 256. @defaultValue 32 */
  readonly hashLength?: number;
  /** Length of the random salt in bytes, 16 to 256. @defaultValue 16 */
  readonly saltLength?: number;
  /**
   * The most memory, in KiB, one hash may take, for encoding and for verifying
   * stored hashes: a stored hash claiming more (`m=4194304`) never matches, so a
   * corrupt or hostile hash cannot exhaust memory. From `memoryCost` to 4 GiB.
   *
   * @defaultValue 262144 (256 MiB; covers OWASP's, Spring's, PHP's and the `argon2` package's defaults)
   */
  readonly maxMemoryCost?: number;
  /**
   * The most passes a stored hash may ask for (a larger one never matches).
   * From `timeCost` to 1000.
   *
   * @defaultValue 10
   */
  readonly maxTimeCost?: number;
  /**
   * Allows memory and time costs weaker than OWASP's minimum (for tests). Never
   * use it in production.
   *
   * @defaultValue false
   */
  readonly dangerouslyAllowWeakParameters?: boolean;
}

/** Validated Argon2 settings. @internal */
export interface Argon2Settings {
  readonly memoryCost: number;
  readonly timeCost: number;
  readonly parallelism: number;
  readonly hashLength: number;
  readonly saltLength: number;
  readonly maxMemoryCost: number;
  readonly maxTimeCost: number;
  readonly maxPasswordLength: number;
}

/** The largest parallelism accepted, in options and in stored hashes. @internal */
export const MAX_PARALLELISM = 16;

/** OWASP's equivalent minimum Argon2id configurations, as [m KiB, t] with p = 1. */
const OWASP_MINIMUMS = [
  [47104, 1],
  [19456, 2],
  [12288, 3],
  [9216, 4],
  [7168, 5],
] as const;

/** Validates the options into a new settings object. @internal */
export function argon2Settings(options: Argon2PasswordEncoderOptions): Argon2Settings {
  const maxMemoryCost = requireInteger(
    'maxMemoryCost',
    options.maxMemoryCost ?? 262144,
    8,
    2 ** 22,
  );
  const maxTimeCost = requireInteger('maxTimeCost', options.maxTimeCost ?? 10, 1, 1000);
  const parallelism = requireInteger('parallelism', options.parallelism ?? 1, 1, MAX_PARALLELISM);
  const memoryCost = requireInteger('memoryCost', options.memoryCost ?? 19456, 8, 2 ** 22);
  const timeCost = requireInteger('timeCost', options.timeCost ?? 2, 1, 1000);
  if (memoryCost < 8 * parallelism) {
    throw new ConfigurationError('memoryCost', 'must be at least 8 × parallelism KiB');
  }
  if (memoryCost > maxMemoryCost) {
    throw new ConfigurationError('maxMemoryCost', 'must be at least memoryCost');
  }
  if (timeCost > maxTimeCost) {
    throw new ConfigurationError('maxTimeCost', 'must be at least timeCost');
  }
  const weak = !OWASP_MINIMUMS.some(([m, t]) => memoryCost >= m && timeCost >= t);
  if (weak && options.dangerouslyAllowWeakParameters !== true) {
    throw new ConfigurationError(
      'memoryCost',
      'memoryCost and timeCost are weaker than OWASP’s minimum (m = 19456 KiB, t = 2 or an equivalent); set dangerouslyAllowWeakParameters to allow it',
    );
  }
  return {
    memoryCost,
    timeCost,
    parallelism,
    hashLength: requireInteger('hashLength', options.hashLength ?? 32, 16, 256),
    saltLength: requireInteger('saltLength', options.saltLength ?? 16, 16, 256),
    maxMemoryCost,
    maxTimeCost,
    maxPasswordLength: maxPasswordLengthOption(options.maxPasswordLength),
  };
}
