import { ConfigurationError } from '../core/errors.js';

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
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigurationError(owner, 'options must be an object');
  }
  for (const name of Object.keys(options)) {
    if (!known.includes(name)) {
      throw new ConfigurationError(name, `is not an option of ${owner}${didYouMean(name, known)}`);
    }
  }
  return options as Readonly<Record<string, unknown>>;
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

/** `' (did you mean "x"?)'` for the nearest known name, or `''`. @internal */
export function didYouMean(name: string, known: readonly string[]): string {
  const folded = name.toLowerCase();
  const dangerous = known.find((candidate) => candidate.toLowerCase() === `dangerously${folded}`);
  if (dangerous !== undefined) return ` (did you mean ${JSON.stringify(dangerous)}?)`;
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.max(1, Math.floor(name.length / 4)));
  for (const candidate of known) {
    const distance = editDistance(folded, candidate.toLowerCase());
    if (distance <= bestDistance) {
      best = candidate;
      bestDistance = distance - 1;
    }
  }
  return best === undefined ? '' : ` (did you mean ${JSON.stringify(best)}?)`;
}

/** Levenshtein distance, with adjacent transpositions counted as one edit. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Number.POSITIVE_INFINITY;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (rows[i - 1]?.[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (rows[i - 1]?.[j - 1] ?? 0) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(value);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? Number.POSITIVE_INFINITY;
}
