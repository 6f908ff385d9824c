import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compilePathPattern,
  compilePattern,
  type CompiledPattern,
} from '../../src/authorization/pattern.js';
import { RuleIndex, foldCode, type IndexedRule } from '../../src/authorization/rule-index.js';

interface TestRule extends IndexedRule {
  readonly id: number;
}

/** The reference: a linear scan in insertion order, first match wins. */
function naive(rules: readonly TestRule[], path: string, method: string): TestRule | undefined {
  return rules.find(
    (rule) =>
      (rule.methods === undefined || rule.methods.has(method)) && rule.pattern.regex.test(path),
  );
}

function tryCompile(source: string, caseSensitive: boolean): CompiledPattern | undefined {
  try {
    return compilePattern(source, caseSensitive);
  } catch {
    return undefined;
  }
}

function tryPathPattern(source: string, caseSensitive: boolean): CompiledPattern | undefined {
  try {
    return compilePathPattern(source, caseSensitive);
  } catch {
    return undefined; // e.g. a variable captured twice
  }
}

// Characters chosen to exercise case folding: ſ (U+017F) folds to s and the Kelvin
// sign (U+212A) to k under `iu`; é/É fold to each other; 😀 is a surrogate pair.
const CHARS = [
  '/',
  'a',
  'A',
  'b',
  's',
  'S',
  'k',
  'K',
  'ſ',
  '\u212A',
  'é',
  'É',
  '.',
  '-',
  '😀',
  '1',
];
const FRAGMENTS = [
  ...CHARS,
  '/a',
  '/s',
  '/k',
  '/A/',
  '.*',
  '.+',
  '?',
  '*',
  '+',
  '{0,2}',
  '|',
  '(',
  ')',
  '(?:',
  '(?:/a)?',
  '(a|s)',
  '[a-s]',
  '[ſk]',
  '[^/]+',
  '\\/',
  '\\.',
  '\\d',
  '\\w',
  '\\p{Ll}',
  '^',
  '$',
  '(?=/)',
  '\\b',
];

const pattern = fc
  .array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 7 })
  .map((parts) => parts.join(''));
const ruleSpec = fc.record({
  source: pattern,
  caseSensitive: fc.boolean(),
  methods: fc.option(fc.subarray(['GET', 'POST', 'DELETE'], { minLength: 1 }), { nil: undefined }),
});
const pathArb = fc
  .array(fc.constantFrom(...CHARS, '/a', '/s/', '/k', '/A', '/ſ', '/\u212A'), { maxLength: 8 })
  .map((parts) => `/${parts.join('')}`);

function build(
  specs: readonly { source: string; caseSensitive: boolean; methods?: string[] | undefined }[],
) {
  const rules: TestRule[] = [];
  const index = new RuleIndex<TestRule>();
  for (const spec of specs) {
    const compiled = tryCompile(spec.source, spec.caseSensitive);
    if (!compiled) continue;
    const rule = {
      id: rules.length,
      pattern: compiled,
      methods: spec.methods && new Set(spec.methods),
    };
    rules.push(rule);
    index.add(rule);
  }
  return { rules, index };
}

describe('RuleIndex', () => {
  it('finds the same first rule as a linear scan (property)', () => {
    fc.assert(
      fc.property(
        fc.array(ruleSpec, { maxLength: 25 }),
        fc.array(pathArb, { minLength: 1, maxLength: 10 }),
        fc.constantFrom('GET', 'POST', 'HEAD'),
        (specs, paths, method) => {
          const { rules, index } = build(specs);
          for (const path of paths) {
            expect(index.find(path, method)?.id).toBe(naive(rules, path, method)?.id);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('finds the same first rule as a linear scan for realistic rule sets (property)', () => {
    const segment = fc.constantFrom('admin', 'api', 'users', 'Public', 'assets', 'ſecret', 'v1');
    const realistic = fc.tuple(
      segment,
      segment,
      fc.constantFrom('/.*', '(?:/.*)?', '', '/[^/]+', 's?'),
    );
    fc.assert(
      fc.property(
        fc.array(realistic, { minLength: 1, maxLength: 60 }),
        fc.array(fc.tuple(segment, segment, fc.constantFrom('', '/', '/x', 's')), {
          maxLength: 10,
        }),
        fc.boolean(),
        (parts, paths, caseSensitive) => {
          const specs = parts.map(([a, b, tail]) => ({
            source: `^/${a}/${b}${tail}`,
            caseSensitive,
          }));
          const { rules, index } = build(specs);
          for (const [a, b, tail] of paths) {
            for (const path of [`/${a}/${b}${tail}`, `/${a.toUpperCase()}/${b}${tail}`]) {
              expect(index.find(path, 'GET')?.id).toBe(naive(rules, path, 'GET')?.id);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('finds the same first rule as a linear scan with path patterns and regexes mixed (property)', () => {
    const segment = fc.constantFrom('admin', 'api', 'Users', 'ſecret', 'v1', 'a.pdf');
    const wildcard = fc.constantFrom('*', '{id}', '*.pdf', 't?st', '{id:[0-9]+}', '{a}.{b}');
    const part = fc.oneof(segment, wildcard);
    const rule = fc.record({
      parts: fc.array(part, { minLength: 1, maxLength: 3 }),
      tail: fc.constantFrom('', '/**', '/{*rest}', '/'),
      regex: fc.boolean(),
    });
    const scan = (rules: readonly TestRule[], path: string) =>
      rules.find(
        ({ pattern }) =>
          pattern.regex.test(path) && (pattern.check === undefined || pattern.check(path)),
      )?.id;
    fc.assert(
      fc.property(
        fc.array(rule, { minLength: 1, maxLength: 30 }),
        fc.array(
          fc.array(fc.oneof(segment, fc.constantFrom('42', 'test', 'x.pdf', 'ADMIN')), {
            maxLength: 4,
          }),
          {
            maxLength: 10,
          },
        ),
        fc.boolean(),
        (specs, paths, caseSensitive) => {
          const rules: TestRule[] = [];
          const index = new RuleIndex<TestRule>();
          for (const spec of specs) {
            const text = `/${spec.parts.join('/')}`;
            const compiled = spec.regex
              ? tryCompile(`${text.replaceAll(/[*?{}]/gu, 'x')}(?:/.*)?`, caseSensitive)
              : tryPathPattern(`${text}${spec.tail}`, caseSensitive);
            if (!compiled) continue;
            const added = { id: rules.length, pattern: compiled, methods: undefined };
            rules.push(added);
            index.add(added);
          }
          for (const segments of paths) {
            const path = `/${segments.join('/')}`;
            expect(index.find(path, 'GET')?.id).toBe(scan(rules, path));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never skips a case-insensitive rule for a path with characters that fold to ASCII', () => {
    const { index } = build([
      { source: '/ſecret/.*', caseSensitive: true },
      { source: '/secret/.*', caseSensitive: false },
      { source: '/kelvin', caseSensitive: false },
    ]);
    expect(index.find('/ſecret/x', 'GET')?.id).toBe(0);
    expect(index.find('/ſECRET/x', 'GET')?.id).toBe(1);
    expect(index.find('/SECRET/x', 'GET')?.id).toBe(1);
    expect(index.find('/\u212Aelvin', 'GET')?.id).toBe(2);
    expect(index.find('/kelvin/x', 'GET')).toBeUndefined();
  });

  it('foldCode maps every code point that matches a printable ASCII character under iu to it', () => {
    const anyAscii = /^[\x20-\x7e]$/iu;
    const printable = Array.from({ length: 0x5f }, (_, i) => String.fromCharCode(0x20 + i));
    let folding = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const char = String.fromCodePoint(cp);
      if (!anyAscii.test(char)) continue;
      const matches = printable.filter((p) =>
        new RegExp(
          `^[${p === ']' || p === '\\' || p === '^' || p === '-' ? `\\${p}` : p}]$`,
          'iu',
        ).test(char),
      );
      for (const p of matches) expect(foldCode(cp)).toBe(p.toLowerCase().charCodeAt(0));
      if (cp > 0x7f) folding++;
    }
    expect(folding).toBe(2); // ſ and the Kelvin sign
  });

  it('keeps insertion order across prefixes and skips rules of other methods', () => {
    const { index } = build([
      { source: '.*', caseSensitive: true, methods: ['POST'] },
      { source: '/api/admin/.*', caseSensitive: true },
      { source: '/api/.*', caseSensitive: true },
      { source: '/.*', caseSensitive: true },
    ]);
    expect(index.find('/api/admin/x', 'GET')?.id).toBe(1);
    expect(index.find('/api/admin/x', 'POST')?.id).toBe(0);
    expect(index.find('/api/x', 'GET')?.id).toBe(2);
    expect(index.find('/other', 'GET')?.id).toBe(3);
  });
});
