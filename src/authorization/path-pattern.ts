import { ConfigurationError } from '../core/errors.js';
import { requireSafeRegex } from './redos.js';

/** One part of a path-pattern segment. @internal */
export type PathPart =
  | { readonly type: 'literal'; readonly text: string }
  | { readonly type: 'char' }
  | { readonly type: 'star' }
  | { readonly type: 'variable'; readonly name: string; readonly regex: string | undefined };

/** A segment between two `/` of a path pattern. @internal */
export interface PathSegment {
  /** The segment as written (e.g. `{id}`, `*.pdf`). */
  readonly text: string;
  readonly parts: readonly PathPart[];
  /** `^(?:…)$` over one segment, with one group per variable, in order. */
  readonly matcher: RegExp;
  /** The segment's text when it has no wildcard nor variable. */
  readonly literal: string | undefined;
}

/** A parsed Spring PathPattern. @internal */
export interface ParsedPathPattern {
  /** The segments before the tail. */
  readonly segments: readonly PathSegment[];
  /** `**` (any further segments) or `{*name}` (the same, captured), at the end only. */
  readonly tail: { readonly name: string | undefined } | undefined;
  /** The variable names, in order. */
  readonly variables: readonly string[];
  /** The one path the pattern matches, when it has no wildcard nor variable. */
  readonly literal: string | undefined;
  /** The whole-path regex source, `[^/]` wildcards, variables as groups. */
  readonly regexSource: string;
  /** Per group of the whole-path regex: a variable name, or the segment whose variables it holds. */
  readonly groups: readonly (string | PathSegment)[];
}

const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/u;
/** Longer patterns are refused: no path longer than the firewall's cap could match anyway. */
const MAX_PATTERN_LENGTH = 4096;

/**
 * Parses and compiles a path pattern with Spring's PathPattern syntax:
 *
 * - `?` one character, `*` zero or more characters within a segment (a whole
 *   segment `*` needs at least one), `**` zero or more segments (last segment only);
 * - `{name}` one segment (or the rest of a segment part), captured as `name`;
 *   `{name:regex}` the same, matching `regex` (checked for ReDoS);
 * - `{*name}` zero or more segments, captured with their leading `/` (`''` for none),
 *   last segment only;
 * - anything else literal, compared to the decoded, normalized path.
 *
 * As in Spring 6, a trailing slash is not optional: `/users` does not match
 * `/users/` (write `/users/**` or both).
 *
 * @throws ConfigurationError naming the pattern for anything that cannot match a
 * normalized path or that Spring refuses (`**` before the end, duplicate names, …)
 * @internal
 */
export function parsePathPattern(pattern: string, flags: string): ParsedPathPattern {
  if (typeof pattern !== 'string' || pattern.length === 0) {
    throw new ConfigurationError('pattern', 'must be a non-empty string such as "/admin/**"');
  }
  const label = JSON.stringify(pattern);
  const fail = (problem: string): never => {
    throw new ConfigurationError('pattern', `${label} ${problem}`);
  };
  if (pattern.length > MAX_PATTERN_LENGTH) fail(`is longer than ${MAX_PATTERN_LENGTH} characters`);
  if (!pattern.startsWith('/')) {
    fail('can never match: a request path is absolute, start the pattern with "/"');
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/u.test(pattern)) {
    fail('contains a control character, which a normalized path never has');
  }
  const texts = splitSegments(pattern.slice(1), fail);
  const segments: PathSegment[] = [];
  const variables: string[] = [];
  const groups: (string | PathSegment)[] = [];
  let tail: { name: string | undefined } | undefined;
  let regexSource = '';
  const addVariable = (name: string) => {
    if (!NAME.test(name)) {
      fail(`has the variable name "${name}": use an identifier ([A-Za-z_$][A-Za-z0-9_$]*)`);
    }
    if (variables.includes(name)) fail(`captures "${name}" twice`);
    variables.push(name);
  };
  texts.forEach((text, index) => {
    const last = index === texts.length - 1;
    const multi = text === '**' ? { name: undefined } : /^\{\*(.*)\}$/u.exec(text);
    if (multi) {
      if (!last) {
        fail(
          `has "${text}" before the end: "**" and "{*name}" match the rest of the path and ` +
            'must be the last segment (as in Spring 6)',
        );
      }
      const name = multi instanceof Array ? multi[1] : undefined;
      if (name !== undefined) {
        addVariable(name);
        groups.push(name);
        regexSource += '((?:/.*)?)';
      } else {
        regexSource += '(?:/.*)?';
      }
      tail = { name };
      return;
    }
    if (text.includes('**')) {
      fail(`has "**" inside a segment: "**" must be a whole segment, at the end ("/admin/**")`);
    }
    if (text === '' && !last)
      fail('has an empty segment ("//"), which a normalized path never has');
    if (text === '.' || text === '..') {
      fail(`has a "${text}" segment, which a normalized path never has`);
    }
    const segment = compileSegment(text, flags, fail, addVariable);
    segments.push(segment);
    if (isChecked(segment)) {
      // Matched on its own, so that its wildcards can only backtrack within it.
      requireSafeRegex(
        'pattern',
        `the segment ${JSON.stringify(segment.text)} of ${label}`,
        segment.matcher.source,
        flags,
      );
      groups.push(segment);
      regexSource += '/([^/]+)';
    } else {
      regexSource += `/${segmentRegex(segment.parts, groups)}`;
    }
  });
  const literal =
    tail === undefined && segments.every((segment) => segment.literal !== undefined)
      ? `/${segments.map((segment) => segment.literal).join('/')}`
      : undefined;
  // The whole-path regex needs no analysis: it is linear by construction. Each
  // segment has at most one loop (`[^/]*` or `[^/]+`; a segment with more wildcards
  // or a constraint is one `([^/]+)`, matched on its own above), which cannot cross
  // a `/`, and what follows a segment is `/` or the end: so the loop's length is fixed
  // by the segment's, every other exit fails after a bounded literal, and the tail
  // `(?:/.*)?` ends the path without backtracking.
  return { segments, tail, variables, literal, regexSource, groups };
}

/**
 * Whether a segment is matched on its own rather than inside the whole-path regex:
 * it has a `{name:regex}` constraint or several wildcards (`{name}.{ext}`).
 */
function isChecked(segment: PathSegment): boolean {
  let wildcards = 0;
  for (const part of segment.parts) {
    if (part.type === 'variable' && part.regex !== undefined) return true;
    if (part.type === 'variable' || part.type === 'star') wildcards++;
  }
  return wildcards > 1;
}

/** Splits at `/` outside braces (a `{name:regex}` may hold a `/`). */
function splitSegments(text: string, fail: (problem: string) => never): string[] {
  const segments: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '\\' && depth > 0)
      i++; // an escape in a constraint (`{id:\d+}`)
    else if (char === '{') depth++;
    else if (char === '}' && --depth < 0) fail('has a "}" without its "{"');
    else if (char === '/' && depth === 0) {
      segments.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) fail('has a "{" without its "}"');
  segments.push(text.slice(start));
  return segments;
}

function compileSegment(
  text: string,
  flags: string,
  fail: (problem: string) => never,
  addVariable: (name: string) => void,
): PathSegment {
  const parts: PathPart[] = [];
  let literal = '';
  const flush = () => {
    if (literal !== '') parts.push({ type: 'literal', text: literal });
    literal = '';
  };
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (char === '?') {
      flush();
      parts.push({ type: 'char' });
    } else if (char === '*') {
      flush();
      parts.push({ type: 'star' });
    } else if (char === '{') {
      flush();
      const close = closingBrace(text, i);
      const body = text.slice(i + 1, close);
      if (body.startsWith('*'))
        fail(`has "{${body}}" inside a segment: "{*name}" is a whole last segment`);
      const colon = body.indexOf(':');
      const name = colon < 0 ? body : body.slice(0, colon);
      const regex = colon < 0 ? undefined : body.slice(colon + 1);
      addVariable(name);
      if (regex !== undefined) checkConstraint(name, regex, flags, fail);
      parts.push({ type: 'variable', name, regex });
      i = close;
    } else if (char === '\\') {
      // A `\` in a constraint is regex syntax (`{id:\d+}`); in the path it never is.
      fail('contains "\\" outside a {name:regex} constraint, which a normalized path never has');
    } else {
      literal += char;
    }
  }
  flush();
  const source = parts
    .map((part) => {
      switch (part.type) {
        case 'literal':
          return escapeRegex(part.text);
        case 'char':
          return '.';
        case 'star':
          return parts.length === 1 ? '.+' : '.*';
        case 'variable':
          return part.regex === undefined ? '(.+)' : `((?:${part.regex}))`;
      }
    })
    .join('');
  const matcher = new RegExp(`^(?:${source})$`, flags);
  const isLiteral = parts.every((part) => part.type === 'literal');
  return { text, parts, matcher, literal: isLiteral ? text : undefined };
}

/** The index of the `}` closing the `{` at `open` (braces nest, as in `\d{3}`). */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return text.length;
}

function checkConstraint(
  name: string,
  regex: string,
  flags: string,
  fail: (problem: string) => never,
): void {
  if (regex === '') fail(`has an empty regex for "${name}"`);
  let groups: number;
  try {
    groups = (new RegExp(`(?:${regex})|`, flags).exec('')?.length ?? 1) - 1;
  } catch (error) {
    const detail = error instanceof SyntaxError ? `: ${error.message}` : '';
    return fail(`has an invalid regex for "${name}"${detail}`);
  }
  if (groups > 0) fail(`has a capturing group in the regex of "${name}": use (?:…)`);
  requireSafeRegex('pattern', `the regex of "${name}" in ${JSON.stringify(regex)}`, regex, flags);
}

/** The whole-path regex of an unconstrained segment; its variables become groups. */
function segmentRegex(parts: readonly PathPart[], groups: (string | PathSegment)[]): string {
  return parts
    .map((part) => {
      switch (part.type) {
        case 'literal':
          return escapeRegex(part.text);
        case 'char':
          return '[^/]';
        case 'star':
          return parts.length === 1 ? '[^/]+' : '[^/]*';
        case 'variable':
          groups.push(part.name);
          return '([^/]+)';
      }
    })
    .join('');
}

/** Escapes the characters that are syntax in a `u`-flag regex. @internal */
export function escapeRegex(text: string): string {
  return text.replaceAll(/[\^$\\.*+?()[\]{}|/]/gu, '\\$&');
}

/**
 * The variables a path pattern captured from a path it matched, or `undefined`
 * when a `{name:regex}` constraint fails.
 *
 * @internal
 */
export function captureVariables(
  parsed: ParsedPathPattern,
  match: RegExpExecArray,
): Record<string, string> | undefined {
  const values: Record<string, string> = Object.create(null) as Record<string, string>;
  const { groups } = parsed;
  for (let i = 0; i < groups.length; i++) {
    const group = groups[i] as string | PathSegment;
    const value = match[i + 1] ?? '';
    if (typeof group === 'string') {
      values[group] = value;
      continue;
    }
    const inner = group.matcher.exec(value);
    if (!inner) return undefined;
    let at = 1;
    for (const part of group.parts) {
      if (part.type === 'variable') values[part.name] = inner[at++] ?? '';
    }
  }
  return values;
}
