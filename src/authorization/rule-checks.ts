import { ConfigurationError } from '../core/errors.js';
import { globHint } from './glob-hint.js';
import type { ParsedPathPattern, PathSegment } from './path-pattern.js';
import { literalPrefix, topLevelAlternatives, type CompiledPattern } from './pattern.js';
import { requireSafeRegex } from './redos.js';

/** What the shadowing check needs of a rule. @internal */
export interface ShadowCandidate {
  readonly pattern: CompiledPattern;
  readonly methods: ReadonlySet<string> | undefined;
  /** The rule as described in errors, e.g. `/admin/** → hasAnyRole('ADMIN')`. */
  readonly description: string;
}

/**
 * The configuration checks of a regex rule (`addMatcher`), in this order:
 *
 * 1. a regex that looks like a glob (`/admin/*`, `**`) is refused with a hint to the
 *    path-pattern form: as a regex `/admin/*` means "/admin" and slashes, so
 *    `/admin/users` would not match it;
 * 2. a regex with a top-level alternative that starts with literal text other than
 *    `/` can never match a request path (which is absolute): `admin/.*`;
 * 3. a regex that can backtrack catastrophically is refused (see `redos.ts`).
 *
 * @internal
 */
export function checkRegexRule(pattern: CompiledPattern): void {
  const { source } = pattern;
  const label = `the regex ${JSON.stringify(source)}`;
  const glob = globHint(source);
  if (glob !== undefined) throw new ConfigurationError('pattern', `${label} ${glob}`);
  const unicodeSets = pattern.regex.flags.includes('v');
  for (const alternative of topLevelAlternatives(source, unicodeSets)) {
    const prefix = literalPrefix(alternative, unicodeSets);
    if (prefix !== '' && !prefix.startsWith('/')) {
      throw new ConfigurationError(
        'pattern',
        `${label} can never match${alternative === source ? '' : ` in its alternative ${JSON.stringify(alternative)}`}: ` +
          `a request path is absolute, start it with "/" ("/${prefix}…")`,
      );
    }
  }
  requireSafeRegex('pattern', label, source, pattern.regex.flags);
}

/** Whether rule `a` applies to every method rule `b` applies to. */
function methodsCover(a: ShadowCandidate, b: ShadowCandidate): boolean {
  if (a.methods === undefined) return true;
  if (b.methods === undefined) return false;
  for (const method of b.methods) if (!a.methods.has(method)) return false;
  return true;
}

/** Whether `a` matches every path `b` matches, where that can be decided. */
function covers(a: CompiledPattern, b: CompiledPattern, path: string): boolean {
  // A case-insensitive `b` also matches the other cases of its paths: only a
  // case-insensitive `a` is sure to match them too.
  if (b.ignoreCase && !a.ignoreCase) return false;
  return a.regex.test(path) && (a.check === undefined || a.check(path));
}

/**
 * The earlier rules that leave `rule` dead, or `undefined` when it can match: the
 * rule's paths are known (a literal path, a path pattern without wildcards, a regex
 * of literal alternatives) and each is matched by an earlier rule for all of its
 * methods, or an earlier path pattern covers its path pattern (`/admin/**` covers
 * `/admin/users/{id}`). Undecidable cases are let through.
 *
 * @internal
 */
export function shadowingRules(
  earlier: readonly ShadowCandidate[],
  rule: ShadowCandidate,
): ShadowCandidate[] | undefined {
  const candidates = earlier.filter((candidate) => methodsCover(candidate, rule));
  if (candidates.length === 0) return undefined;
  const { pattern } = rule;
  const structural = pattern.path;
  if (structural !== undefined) {
    const cover = candidates.find(
      (candidate) =>
        candidate.pattern.path !== undefined &&
        (candidate.pattern.ignoreCase || !pattern.ignoreCase) &&
        patternCovers(candidate.pattern.path, structural),
    );
    if (cover !== undefined) return [cover];
  }
  const literals = pattern.literals;
  if (literals === undefined) return undefined;
  const shadows: ShadowCandidate[] = [];
  for (const path of literals) {
    const shadow = candidates.find((candidate) => covers(candidate.pattern, pattern, path));
    if (shadow === undefined) return undefined;
    if (!shadows.includes(shadow)) shadows.push(shadow);
  }
  return shadows;
}

/**
 * Whether every path `b` matches is matched by `a` (decided on the structure;
 * `false` when it cannot be decided that way).
 *
 * @internal
 */
export function patternCovers(a: ParsedPathPattern, b: ParsedPathPattern): boolean {
  const count = a.segments.length;
  if (a.tail === undefined) {
    if (b.tail !== undefined || b.segments.length !== count) return false;
  } else if (b.segments.length < count) {
    return false;
  }
  for (let i = 0; i < count; i++) {
    if (!segmentCovers(a.segments[i] as PathSegment, b.segments[i] as PathSegment)) return false;
  }
  return true;
}

function segmentCovers(a: PathSegment, b: PathSegment): boolean {
  if (b.literal !== undefined) return a.matcher.test(b.literal);
  // A lone `*` or `{name}` matches any non-empty segment, and only a literal
  // segment (a trailing slash) can be empty.
  const [only] = a.parts;
  if (
    a.parts.length === 1 &&
    (only?.type === 'star' || (only?.type === 'variable' && !only.regex))
  ) {
    return true;
  }
  return a.text === b.text;
}
