import { ConfigurationError } from './errors.js';
import { didYouMean } from '../lib/suggest.js';

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

/** Hints for {@link rejectUnknownOptions}. @internal */
export interface UnknownOptionHints {
  /**
   * Common mistakes and the option meant (`encoder` → `passwordEncoder`), suggested
   * before the nearest spelling; an alias to an option not in `known` is ignored.
   */
  readonly aliases?: Readonly<Record<string, string>>;
  /** The error's `option` for a key (`cache.ttl` for `ttl`). @defaultValue the key */
  readonly path?: (key: string) => string;
}

/**
 * Refuses option names that are not `known` (a typo would otherwise be ignored
 * silently): the one unknown-option check of the library, with one message,
 * `<option>: is not an option of <owner> (did you mean "<name>"?)`. The hint is an
 * alias for a common mistake, else the `dangerously…` option the name lacks the
 * prefix of, else the nearest spelling, else nothing.
 *
 * @throws ConfigurationError naming the unknown option
 * @internal
 */
export function rejectUnknownOptions(
  owner: string,
  options: object,
  known: readonly string[] | ReadonlySet<string>,
  hints: UnknownOptionHints = {},
): void {
  const names = [...known];
  for (const key of Object.keys(options)) {
    if (names.includes(key)) continue;
    const option = hints.path === undefined ? key : hints.path(key);
    throw new ConfigurationError(option, unknownOption(owner, key, names, hints.aliases));
  }
}

/**
 * The one check of an options object: a plain object (never `null` or an array), else
 * a {@link ConfigurationError} naming `option` with "must be an object"; then
 * {@link rejectUnknownOptions}.
 *
 * @internal
 */
export function requireOptionsObject(
  option: string,
  owner: string,
  options: unknown,
  known: readonly string[] | ReadonlySet<string>,
  hints: UnknownOptionHints = {},
): Readonly<Record<string, unknown>> {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigurationError(option, 'must be an object');
  }
  rejectUnknownOptions(owner, options, known, hints);
  return options as Readonly<Record<string, unknown>>;
}

/** The message of an unknown option (see {@link rejectUnknownOptions}). @internal */
export function unknownOption(
  owner: string,
  name: string,
  known: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): string {
  const alias = Object.hasOwn(aliases, name) ? aliases[name] : undefined;
  const dangerous = known.find(
    (candidate) => candidate.toLowerCase() === `dangerously${name.toLowerCase()}`,
  );
  const hint =
    alias !== undefined && known.includes(alias)
      ? ` (did you mean ${JSON.stringify(alias)}?)`
      : dangerous === undefined
        ? didYouMean(name, known)
        : ` (did you mean ${JSON.stringify(dangerous)}?)`;
  return `is not an option of ${owner}${hint}`;
}
