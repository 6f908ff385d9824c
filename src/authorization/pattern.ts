import { ConfigurationError } from '../core/errors.js';
import { globHint } from './glob-hint.js';
import { captureVariables, parsePathPattern, type ParsedPathPattern } from './path-pattern.js';

/** A URL-rule pattern compiled once, with what the lookup index needs to skip it cheaply. */
export interface CompiledPattern {
  /** `^(?:source)$` with the `s` and `u` (or `v`) flags, plus `i` when case-insensitive. */
  readonly regex: RegExp;
  /**
   * A further test of a path the regex matched (the `{name:regex}` constraints of a
   * path pattern); `undefined` when the regex decides alone.
   */
  readonly check: ((path: string) => boolean) | undefined;
  /** The parsed path pattern; `undefined` for a regex rule. */
  readonly path: ParsedPathPattern | undefined;
  /**
   * Every path the pattern matches, when they are a few literal paths (`/login`,
   * the regex `/login|/logout`); `undefined` otherwise. For shadowing checks.
   */
  readonly literals: readonly string[] | undefined;
  /** The pattern as the user wrote it, for rule descriptions. */
  readonly source: string;
  /** Whether the regex has the `i` flag. */
  readonly ignoreCase: boolean;
  /**
   * Printable-ASCII text every matching path starts with (lower-cased when
   * `ignoreCase`); `''` when none can be proven.
   */
  readonly prefix: string;
}

/**
 * Compiles a URL-rule pattern: fully anchored, `s` (dotAll) and `u` flags; a
 * RegExp's `i` flag is kept (its `v` flag too, which replaces `u`), its `g`, `y`,
 * `m` and `d` flags dropped (anchoring is always to the whole path).
 *
 * @internal
 */
export function compilePattern(pattern: string | RegExp, caseSensitive: boolean): CompiledPattern {
  let source: string;
  let flags = 's';
  if (typeof pattern === 'string') {
    source = pattern;
  } else if (pattern instanceof RegExp) {
    source = pattern.source;
    if (pattern.ignoreCase) flags += 'i';
    if (pattern.flags.includes('v')) flags += 'v';
  } else {
    throw new ConfigurationError('pattern', 'must be a string or a RegExp');
  }
  if (source.length === 0 || source === '(?:)') {
    throw new ConfigurationError('pattern', 'must not be empty');
  }
  if (!caseSensitive && !flags.includes('i')) flags += 'i';
  if (!flags.includes('v')) flags += 'u';
  let regex: RegExp;
  try {
    // The source must be a valid regular expression on its own (balanced groups),
    // so that wrapping it cannot be escaped: `a)|(b` must never become `^(?:a)|(b)$`.
    new RegExp(source, flags);
    regex = new RegExp(`^(?:${source})$`, flags);
  } catch (error) {
    const detail = error instanceof SyntaxError ? `: ${error.message}` : '';
    const hint = globHint(source);
    throw new ConfigurationError(
      'pattern',
      `is not a valid regular expression${detail}${hint === undefined ? '' : `; it ${hint}`}`,
    );
  }
  const ignoreCase = flags.includes('i');
  const unicodeSets = flags.includes('v');
  const prefix = literalPrefix(source, unicodeSets);
  return {
    regex,
    check: undefined,
    path: undefined,
    literals: regexLiterals(source, unicodeSets),
    source,
    ignoreCase,
    prefix: ignoreCase ? prefix.toLowerCase() : prefix,
  };
}

/**
 * Compiles a Spring PathPattern (`/admin/**`, `/users/{id}`, `/files/*.pdf`,
 * `{*rest}`): see {@link parsePathPattern}. Case-insensitive unless `caseSensitive`.
 *
 * @internal
 */
export function compilePathPattern(pattern: string, caseSensitive: boolean): CompiledPattern {
  const flags = caseSensitive ? 'su' : 'siu';
  const parsed = parsePathPattern(pattern, flags);
  const regex = new RegExp(`^${parsed.regexSource}$`, flags);
  const constrained = parsed.groups.some((group) => typeof group !== 'string');
  const check = constrained
    ? (path: string): boolean => {
        const match = regex.exec(path);
        return match !== null && captureVariables(parsed, match) !== undefined;
      }
    : undefined;
  const ignoreCase = !caseSensitive;
  const prefix = literalPrefix(parsed.regexSource);
  return {
    regex,
    check,
    path: parsed,
    literals: parsed.literal === undefined ? undefined : [parsed.literal],
    source: pattern,
    ignoreCase,
    prefix: ignoreCase ? prefix.toLowerCase() : prefix,
  };
}

/**
 * The literal paths a regex matches when each top-level alternative is plain
 * text (`/login|/logout`), else `undefined`.
 */
function regexLiterals(source: string, unicodeSets: boolean): readonly string[] | undefined {
  const literals: string[] = [];
  for (const alternative of topLevelAlternatives(source, unicodeSets)) {
    const prefix = literalPrefix(alternative, unicodeSets);
    if (alternative.replaceAll(/\\(.)/gsu, '$1') !== prefix) return undefined;
    literals.push(prefix);
  }
  return literals;
}

/**
 * The top-level alternatives of a regex source (split at every `|` outside groups
 * and classes).
 *
 * @internal
 */
export function topLevelAlternatives(source: string, unicodeSets = false): string[] {
  const alternatives: string[] = [];
  let depth = 0;
  let classDepth = 0;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') {
      i++;
    } else if (classDepth > 0) {
      if (char === ']') classDepth--;
      else if (char === '[' && unicodeSets) classDepth++;
    } else if (char === '[') {
      classDepth = 1;
    } else if (char === '(') {
      depth++;
    } else if (char === ')') {
      depth--;
    } else if (char === '|' && depth === 0) {
      alternatives.push(source.slice(start, i));
      start = i + 1;
    }
  }
  alternatives.push(source.slice(start));
  return alternatives;
}

/** Characters that may follow a `\` and then stand for themselves (u-mode identity escapes). */
const IDENTITY_ESCAPES = new Set('^$\\.*+?()[]{}|/');
/** Characters that are syntax outside a class; any of them ends the literal prefix. */
const SYNTAX = new Set('^$\\.*+?()[]{}|');
const QUANTIFIERS = new Set('*+?{');

/**
 * The printable-ASCII text every string matched by `source` (at position 0) starts
 * with. Conservative: it stops at the first character that is not a plain literal
 * (any syntax character, a non-ASCII character, an escape other than an escaped
 * syntax character), drops a literal that a quantifier follows, and is empty when
 * the source has a top-level alternation. Leading `^` assertions are skipped.
 *
 * @internal
 */
export function literalPrefix(source: string, unicodeSets = false): string {
  if (hasTopLevelAlternation(source, unicodeSets)) return '';
  let i = 0;
  while (source[i] === '^') i++;
  let prefix = '';
  while (i < source.length) {
    let char = source.charAt(i);
    let width = 1;
    if (char === '\\') {
      const next = source.charAt(i + 1);
      if (!IDENTITY_ESCAPES.has(next)) break;
      char = next;
      width = 2;
    } else if (SYNTAX.has(char)) {
      break;
    }
    const code = char.charCodeAt(0);
    if (code < 0x20 || code > 0x7e) break;
    if (QUANTIFIERS.has(source.charAt(i + width))) break;
    prefix += char;
    i += width;
  }
  return prefix;
}

/** Whether `|` occurs outside every group and character class. */
function hasTopLevelAlternation(source: string, unicodeSets: boolean): boolean {
  return topLevelAlternatives(source, unicodeSets).length > 1;
}
