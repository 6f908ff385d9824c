import { ConfigurationError } from '../core/errors.js';
import { didYouMean } from '../lib/suggest.js';
import { requireOptionsObject } from '../core/validate.js';

/** A plain options object (any prototype), not an array or a function. @internal */
export type OptionRecord = Readonly<Record<string, unknown>>;

/**
 * Throws unless `value` is an object (not an array) whose own keys are all in
 * `allowed`, naming an unknown key with a "did you mean" hint. Legacy or
 * misspelt names in `aliases` are pointed at the option meant.
 *
 * @internal
 */
export function requireOptions(
  option: string,
  value: unknown,
  allowed: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): OptionRecord {
  return requireOptionsObject(
    option === '' ? 'options' : option,
    option === '' ? 'SecurityHeaders' : option,
    value,
    allowed,
    { aliases, path: (key) => optionPath(option, key) },
  );
}

/** `value`, or `fallback` when it is `undefined`; throws unless it is a boolean. @internal */
export function optionalBoolean(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ConfigurationError(option, 'must be a boolean');
  return value;
}

/**
 * Throws unless `value` is one of `allowed` (compared as given); the message
 * lists the allowed values and suggests the nearest.
 *
 * @internal
 */
export function requireOneOf<T extends string>(
  option: string,
  value: unknown,
  allowed: readonly T[],
): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) {
    return value as T;
  }
  const hint = typeof value === 'string' ? didYouMean(value, allowed) : '';
  throw new ConfigurationError(option, `must be one of ${allowed.join(', ')}${hint}`);
}

/** Visible ASCII and spaces, no leading or trailing space: safe in every HTTP/1.1 and HTTP/2 stack. */
const UNSAFE_VALUE = /[^\u0020-\u007e]/u;

/**
 * Throws unless `value` is a non-empty string that is safe as (part of) a header
 * value: no CR, LF, NUL or other control character, no non-ASCII character (a
 * header value is a byte string), no leading or trailing whitespace. The value is
 * never echoed in the message.
 *
 * @internal
 */
export function requireHeaderValue(option: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ConfigurationError(option, 'must be a non-empty string');
  }
  if (UNSAFE_VALUE.test(value)) {
    throw new ConfigurationError(
      option,
      'must contain only visible ASCII characters and spaces (no CR, LF or other control characters)',
    );
  }
  if (value.trim() !== value) {
    throw new ConfigurationError(option, 'must not start or end with whitespace');
  }
  return value;
}

/** An RFC 9110 `token`: a valid header field name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/u;

/** Throws unless `name` is a valid header field name; returns it lower-cased. @internal */
export function requireHeaderName(option: string, name: string): string {
  if (!TOKEN.test(name)) throw new ConfigurationError(option, 'is not a valid header name');
  return name.toLowerCase();
}

/**
 * `parent.key`, or `parent["key"]` when the key is not a plain name, so a key
 * holding control characters never reaches an error message raw.
 *
 * @internal
 */
export function optionPath(parent: string, key: string): string {
  if (!/^[\w-]+$/u.test(key))
    return `${parent === '' ? 'options' : parent}[${JSON.stringify(key)}]`;
  return parent === '' ? key : `${parent}.${key}`;
}
