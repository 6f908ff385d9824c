/**
 * A `Vary` value with the names of `add` that `existing` lacks appended
 * (case-insensitive; `*` stays `*`).
 *
 * @internal
 */
export function mergeVary(existing: string | undefined, add: string): string {
  if (existing === undefined || existing.trim() === '') return add;
  if (existing.trim() === '*') return existing;
  const have = new Set(existing.split(',').map((name) => name.trim().toLowerCase()));
  const missing = add
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && !have.has(name.toLowerCase()));
  return missing.length === 0 ? existing : `${existing}, ${missing.join(', ')}`;
}
