import { ConfigurationError } from '../core/errors.js';
import { didYouMean } from './suggest.js';

/**
 * Throws a {@link ConfigurationError} (a `TypeError`) naming the option unless the
 * value is a non-empty string without control characters.
 *
 * @internal
 */
export function requireName(option: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ConfigurationError(option, 'must be a non-empty string');
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/u.test(value)) {
    throw new ConfigurationError(option, 'must not contain control characters');
  }
  return value;
}

/**
 * Validates every name of an iterable with {@link requireName}.
 *
 * @internal
 */
export function requireNames(option: string, values: unknown): string[] {
  if (typeof values === 'string' || values == null || !isIterable(values)) {
    throw new ConfigurationError(option, 'must be an array of strings');
  }
  return Array.from(values, (value) => requireName(option, value));
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return typeof (value as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function';
}

/**
 * Throws unless `value` is a finite integer in `[min, max]`.
 *
 * @internal
 */
export function requireInteger(option: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigurationError(option, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

/**
 * Refuses option names that are not `known` (a typo would otherwise be ignored
 * silently), with a "did you mean" hint.
 *
 * @throws ConfigurationError naming the unknown option
 * @internal
 */
export function rejectUnknownOptions(
  owner: string,
  options: object,
  known: readonly string[],
): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new ConfigurationError(key, `is not an option of ${owner}${didYouMean(key, known)}`);
    }
  }
}
