import { ConfigurationError } from '../core/errors.js';
import {
  DEFAULT_DIRECTIVES,
  KNOWN_DIRECTIVES,
  NONCE,
  isPlaceholder,
  type CspSource,
} from './csp-options.js';
import {
  optionPath,
  optionalBoolean,
  requireHeaderValue,
  requireOptions,
} from './option-checks.js';
import { didYouMean, suggest } from '../lib/suggest.js';

/**
 * A Content-Security-Policy compiled once: its header name and its value split
 * around the nonce placeholder, so a request's value is `parts.join(nonceSource)`.
 *
 * @internal
 */
export interface CompiledPolicy {
  /** `content-security-policy` or `content-security-policy-report-only`. */
  readonly name: string;
  /** The value; more than one part when a directive holds the nonce placeholder. */
  readonly parts: readonly string[];
}

const OPTION = 'contentSecurityPolicy';
const DIRECTIVE_NAME = /^[a-z](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/u;
/** Directives where a nonce means something (CSP3 §6.7.2.2 "does a source list allow all inline behavior"). */
const NONCE_DIRECTIVES = new Set([
  'default-src',
  'script-src',
  'script-src-elem',
  'style-src',
  'style-src-elem',
]);
/** Keywords that must be written in single quotes, as `'self'`. */
const QUOTED_KEYWORDS = [
  'none',
  'self',
  'strict-dynamic',
  'report-sample',
  'inline-speculation-rules',
  'unsafe-inline',
  'unsafe-eval',
  'unsafe-hashes',
  'unsafe-allow-redirects',
  'wasm-unsafe-eval',
  'trusted-types-eval',
  'report-sha256',
  'report-sha384',
  'report-sha512',
  'allow-duplicates',
  'script',
];
const UNQUOTED_MISTAKE = /^(?:nonce|sha256|sha384|sha512)-/u;
const HASH_SOURCE = /^sha(?:256|384|512)-[A-Za-z0-9+/_-]+={0,2}$/iu;

/**
 * Validates {@link ContentSecurityPolicyOptions} and compiles the header.
 * Throws {@link ConfigurationError} naming the option on any mistake.
 *
 * @internal
 */
export function compileContentSecurityPolicy(value: unknown): CompiledPolicy {
  const options = requireOptions(OPTION, value, ['directives', 'useDefaults', 'reportOnly']);
  const useDefaults = optionalBoolean(`${OPTION}.useDefaults`, options.useDefaults, true);
  const reportOnly = optionalBoolean(`${OPTION}.reportOnly`, options.reportOnly, false);
  const directives = new Map<string, readonly CspSource[]>(useDefaults ? DEFAULT_DIRECTIVES : []);
  let defaultSrcDisabled = false;
  const seen = new Set<string>();
  const raw: unknown = options.directives ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigurationError(`${OPTION}.directives`, 'must be an object of directives');
  }
  for (const [rawName, setting] of Object.entries(raw as Readonly<Record<string, unknown>>)) {
    const name = directiveName(rawName);
    const path = optionPath(`${OPTION}.directives`, rawName);
    if (seen.has(name)) throw new ConfigurationError(path, `sets ${name} a second time`);
    seen.add(name);
    const disable = isPlaceholder(setting, 'dangerouslyDisableDefaultSrc');
    if (setting === null || disable) {
      if ((name === 'default-src') !== disable) {
        throw new ConfigurationError(
          path,
          name === 'default-src'
            ? 'default-src is needed; to drop it, set it to SecurityHeaders.dangerouslyDisableDefaultSrc'
            : 'only default-src takes dangerouslyDisableDefaultSrc; omit the key or set it to null',
        );
      }
      defaultSrcDisabled ||= disable;
      directives.delete(name);
      continue;
    }
    directives.set(name, directiveSources(path, name, setting));
  }
  if (directives.size === 0) {
    throw new ConfigurationError(
      `${OPTION}.directives`,
      'has no directive; set some or switch the header off with contentSecurityPolicy: false',
    );
  }
  if (!directives.has('default-src') && !defaultSrcDisabled) {
    throw new ConfigurationError(
      `${OPTION}.directives`,
      'needs default-src; to drop it on purpose, set it to SecurityHeaders.dangerouslyDisableDefaultSrc',
    );
  }
  const name = reportOnly ? 'content-security-policy-report-only' : 'content-security-policy';
  return Object.freeze({ name, parts: Object.freeze(serialize(directives)) });
}

/** Validates a camelCase or kebab-case directive name and returns its kebab-case form. */
function directiveName(rawName: string): string {
  const path = optionPath(`${OPTION}.directives`, rawName);
  if (!DIRECTIVE_NAME.test(rawName)) {
    throw new ConfigurationError(path, 'is not a valid directive name');
  }
  const name = rawName.replaceAll(/[A-Z]/gu, (letter) => `-${letter.toLowerCase()}`);
  if ((KNOWN_DIRECTIVES as readonly string[]).includes(name)) return name;
  const hint = suggest(name, KNOWN_DIRECTIVES);
  if (hint !== undefined) {
    throw new ConfigurationError(path, `is not a known directive (did you mean "${hint}"?)`);
  }
  return name; // a directive newer than this list
}

function directiveSources(path: string, name: string, setting: unknown): CspSource[] {
  if (isPlaceholder(setting, 'nonce')) {
    throw new ConfigurationError(path, 'must be a list of sources: [SecurityHeaders.nonce]');
  }
  const entries = typeof setting === 'string' ? [setting] : iterableOrThrow(path, setting);
  const sources: CspSource[] = [];
  for (const entry of entries) {
    if (isPlaceholder(entry, 'nonce')) {
      if (!NONCE_DIRECTIVES.has(name)) {
        throw new ConfigurationError(
          path,
          `a nonce has no effect in ${name}; use it in script-src, style-src (or their -elem forms) or default-src`,
        );
      }
      if (sources.includes(NONCE)) throw new ConfigurationError(path, 'holds the nonce twice');
      sources.push(NONCE);
      continue;
    }
    const text = requireHeaderValue(path, entry);
    for (const token of text.split(/ +/u)) sources.push(checkSource(path, token));
  }
  if (sources.length > 1 && sources.some((s) => typeof s === 'string' && isNone(s))) {
    throw new ConfigurationError(path, "'none' must be the only source of a directive");
  }
  return sources;
}

function iterableOrThrow(path: string, setting: unknown): Iterable<unknown> {
  if (
    typeof setting === 'object' &&
    setting !== null &&
    typeof (setting as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function'
  ) {
    return setting as Iterable<unknown>;
  }
  throw new ConfigurationError(path, 'must be an array of sources, a string or null');
}

function isNone(source: string): boolean {
  return source.toLowerCase() === "'none'";
}

/** Validates one source expression (helmet's checks plus quoting and fixed-nonce checks). */
function checkSource(path: string, token: string): string {
  if (/[;,]/u.test(token)) {
    throw new ConfigurationError(path, 'a source must not contain ";" or ","');
  }
  const lower = token.toLowerCase();
  if (QUOTED_KEYWORDS.includes(lower) || UNQUOTED_MISTAKE.test(lower)) {
    throw new ConfigurationError(path, `${JSON.stringify(token)} must be quoted: "'${token}'"`);
  }
  if (!token.includes("'")) return token;
  if (token.length < 3 || !token.startsWith("'") || !token.endsWith("'")) {
    throw new ConfigurationError(path, `${JSON.stringify(token)} has unbalanced single quotes`);
  }
  const keyword = lower.slice(1, -1);
  if (keyword.startsWith('nonce-')) {
    throw new ConfigurationError(
      path,
      'a fixed nonce defeats its purpose; use SecurityHeaders.nonce for a fresh nonce per request',
    );
  }
  if (/^sha(?:256|384|512)-/u.test(keyword)) {
    if (!HASH_SOURCE.test(token.slice(1, -1))) {
      throw new ConfigurationError(path, `${JSON.stringify(token)} is not a valid hash source`);
    }
    return token;
  }
  if (keyword.includes("'")) {
    throw new ConfigurationError(path, `${JSON.stringify(token)} has unbalanced single quotes`);
  }
  if (!QUOTED_KEYWORDS.includes(keyword)) {
    const hint = didYouMean(keyword, QUOTED_KEYWORDS);
    if (hint !== '') {
      throw new ConfigurationError(path, `${JSON.stringify(token)} is not a keyword${hint}`);
    }
  }
  return token;
}

/** `name src src;name2 …`, cut wherever the nonce goes. */
function serialize(directives: ReadonlyMap<string, readonly CspSource[]>): string[] {
  const parts: string[] = [];
  let current = '';
  for (const [name, sources] of directives) {
    if (current !== '' || parts.length > 0) current += ';';
    current += name;
    for (const source of sources) {
      current += ' ';
      if (typeof source === 'string') {
        current += source;
      } else {
        parts.push(current);
        current = '';
      }
    }
  }
  parts.push(current);
  return parts;
}
