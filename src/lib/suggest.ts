/**
 * The candidate a mistyped name most likely meant, for "did you mean" hints:
 * an exact match ignoring case, `-` and `_`, else the nearest candidate within a
 * small edit distance that grows with the name (transpositions count as one edit).
 *
 * @internal
 */
export function suggest(name: string, candidates: Iterable<string>): string | undefined {
  const folded = fold(name);
  let best: string | undefined;
  let bestDistance = folded.length < 5 ? 1 : folded.length < 12 ? 2 : 3;
  for (const candidate of candidates) {
    const other = fold(candidate);
    if (other === folded) return candidate;
    const distance = editDistance(folded, other, bestDistance);
    if (distance <= bestDistance) {
      best = candidate;
      bestDistance = distance - 1;
    }
  }
  return best;
}

/** `' (did you mean "x"?)'`, or `''` without a suggestion. @internal */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const hint = suggest(name, candidates);
  return hint === undefined ? '' : ` (did you mean ${JSON.stringify(hint)}?)`;
}

function fold(name: string): string {
  return name.toLowerCase().replaceAll(/[-_]/gu, '');
}

/** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions). */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return Number.POSITIVE_INFINITY;
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (previous2[j - 2] ?? 0) + 1);
      }
      current.push(value);
    }
    previous2 = previous;
    previous = current;
  }
  return previous[b.length] ?? Number.POSITIVE_INFINITY;
}
