import { createRequire } from 'node:module';
import { ConfigurationError } from '../core/errors.js';
import { isProvablyLinear } from './linear-regex.js';

/** What the ReDoS analyser says of a regex. @internal */
export interface RegexVerdict {
  readonly safe: boolean;
  /** `'linear'`, `'exponential'`, `'polynomial (degree 2)'`, or why it is unknown. */
  readonly complexity: string;
  /** Who decided: the quick proof of this module, or the analyser. */
  readonly by: 'proof' | 'recheck';
}

interface RecheckDiagnostics {
  readonly status: 'safe' | 'vulnerable' | 'unknown';
  readonly complexity?: { readonly type: string; readonly degree?: number };
  readonly error?: { readonly kind: string };
}

interface Recheck {
  checkSync(
    source: string,
    flags: string,
    params?: Readonly<Record<string, unknown>>,
  ): RecheckDiagnostics;
}

let recheck: Recheck | undefined;
const verdicts = new Map<string, RegexVerdict>();

/**
 * Analyses `source` (as `^(?:source)$` with `flags`) for catastrophic backtracking.
 * A regex this module proves linear (one ambiguous loop at most, see
 * `linear-regex.ts`) is accepted at once; any other is checked by `recheck`
 * (loaded on first use, so importing portcullis never loads it), which combines
 * an automaton analysis with fuzzing and answers safe, vulnerable (exponential or
 * polynomial, with the degree) or unknown. Verdicts are cached per source and flags.
 *
 * @internal
 */
export function analyseRegex(source: string, flags: string): RegexVerdict {
  const key = `${flags}/${source}`;
  const cached = verdicts.get(key);
  if (cached !== undefined) return cached;
  let verdict: RegexVerdict;
  if (isProvablyLinear(source, flags)) {
    verdict = { safe: true, complexity: 'linear', by: 'proof' };
  } else {
    recheck ??= createRequire(import.meta.url)('recheck') as Recheck;
    const result = recheck.checkSync(`^(?:${source})$`, flags, { timeout: 10_000 });
    const complexity =
      result.status === 'unknown'
        ? `unknown (${result.error?.kind ?? 'no answer'})`
        : result.complexity?.type === 'polynomial'
          ? `polynomial (degree ${String(result.complexity.degree ?? '?')})`
          : (result.complexity?.type ?? result.status);
    verdict = { safe: result.status === 'safe', complexity, by: 'recheck' };
  }
  verdicts.set(key, verdict);
  return verdict;
}

/**
 * Throws a {@link ConfigurationError} naming the rule unless the regex is proven
 * free of catastrophic backtracking: exponential and polynomial (super-linear)
 * regexes are refused, and so is one the analyser could not decide.
 *
 * @internal
 */
export function requireSafeRegex(
  option: string,
  label: string,
  source: string,
  flags: string,
): void {
  const verdict = analyseRegex(source, flags);
  if (verdict.safe) return;
  throw new ConfigurationError(
    option,
    `${label} can backtrack catastrophically (${verdict.complexity} time in the path length), ` +
      'so one request could stall the server: simplify it (no nested or adjacent ' +
      'overlapping repetitions such as (a+)+, (a|a)* or .*x.*), or use a path pattern ' +
      '(requestMatchers: /users/{id}, /files/**)',
  );
}
