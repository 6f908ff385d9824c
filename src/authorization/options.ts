import { ConfigurationError } from '../core/errors.js';
import { requireOptionsObject } from '../core/validate.js';

/**
 * Throws a {@link ConfigurationError} for the first key of `options` that is not in
 * `known`, with a "did you mean" hint for a near-typo (`allowEncodedSlashes` →
 * `allowEncodedSlash`). Accepts `undefined` (no options).
 *
 * @internal
 */
export function checkOptionNames(
  owner: string,
  options: unknown,
  known: readonly string[],
): Readonly<Record<string, unknown>> {
  if (options === undefined) return {};
  return requireOptionsObject(owner, owner, options, known);
}

/** Reads an optional boolean option. @internal */
export function booleanOption(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ConfigurationError(name, 'must be a boolean');
  return value;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u;

/**
 * Validates HTTP method names (RFC 9110 §9.1 tokens) and returns them in upper
 * case, as {@link SecurityRequest.method} is.
 *
 * @internal
 */
export function requireMethods(option: string, value: unknown): string[] {
  const list: unknown = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) {
    throw new ConfigurationError(option, 'must be a method name or a non-empty array of them');
  }
  return list.map((method) => {
    if (typeof method !== 'string' || !TOKEN.test(method)) {
      throw new ConfigurationError(option, 'must contain HTTP method names (tokens), e.g. "GET"');
    }
    return method.toUpperCase();
  });
}
