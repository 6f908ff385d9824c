import { describe, expect, it } from 'vitest';
import { compilePattern, literalPrefix } from '../../src/authorization/pattern.js';
import { thrown } from './helpers.js';

describe('compilePattern', () => {
  it('anchors fully and compiles with s and u, plus i unless case-sensitive', () => {
    const insensitive = compilePattern('/admin/.*', false);
    expect(insensitive.regex.source).toBe('^(?:\\/admin\\/.*)$');
    expect(insensitive.regex.flags).toBe('isu');
    expect(insensitive.ignoreCase).toBe(true);
    const sensitive = compilePattern('/admin/.*', true);
    expect(sensitive.regex.flags).toBe('su');
    expect(sensitive.regex.test('/admin/x')).toBe(true);
    expect(sensitive.regex.test('/x/admin/x')).toBe(false);
    expect(sensitive.regex.test('/admin/x\n')).toBe(true);
    expect(sensitive.regex.test('/ADMIN/x')).toBe(false);
  });

  it('keeps a RegExp’s i flag and drops g, y, m and d', () => {
    const compiled = compilePattern(/\/admin/dgimy, true);
    expect(compiled.regex.flags).toBe('isu');
    expect(compiled.regex.test('/ADMIN')).toBe(true);
    // no m: the anchors hold for the whole path, not one line
    expect(compiled.regex.test('/public\n/admin')).toBe(false);
    // no g or y: repeated tests give the same answer
    expect(compiled.regex.test('/admin')).toBe(true);
    expect(compiled.regex.test('/admin')).toBe(true);
    expect(compilePattern(/\/a/u, true).regex.flags).toBe('su');
  });

  it('keeps the v flag instead of u', () => {
    const compiled = compilePattern(new RegExp('\\/[\\p{L}--[a-z]]+', 'v'), true);
    expect(compiled.regex.flags).toBe('sv');
    expect(compiled.regex.test('/ÉA')).toBe(true);
    expect(compiled.regex.test('/a')).toBe(false);
  });

  it('cannot be escaped by a pattern that closes the wrapping group', () => {
    for (const pattern of ['/public)|(.*', '/a)|(?:/b', '(']) {
      const error = thrown(() => compilePattern(pattern, false));
      expect(error.code).toBe('ERR_INVALID_OPTION');
      expect(error.option).toBe('pattern');
    }
  });

  it('rejects invalid, empty and non-pattern values', () => {
    for (const pattern of ['[', '/a{', '\\', 'a**', '', new RegExp(''), 42]) {
      const error = thrown(() => compilePattern(pattern as string, false));
      expect(error.code).toBe('ERR_INVALID_OPTION');
    }
  });
});

describe('literalPrefix', () => {
  it.each([
    ['^/admin/.*', '/admin/'],
    ['/admin(?:/.*)?', '/admin'],
    ['^^/api', '/api'],
    ['/admins?', '/admin'],
    ['/ab*', '/a'],
    ['/ab+', '/a'],
    ['/ab{2}', '/a'],
    ['/ab??', '/a'],
    ['\\/api\\/v1\\.0\\/x', '/api/v1.0/x'],
    ['\\/api\\.?', '/api'],
    ['/a\\d', '/a'],
    ['/a\\bc', '/a'],
    ['/a\\u0062', '/a'],
    ['/a\\p{L}', '/a'],
    ['/a.b', '/a'],
    ['/a[bc]', '/a'],
    ['/a$', '/a'],
    ['/a(?=b)', '/a'],
    ['/é/x', '/'],
    ['/😀?', '/'],
    ['/a😀?', '/a'],
    ['/a|/b', ''],
    ['/a/(b)|c', ''],
    ['(?:/a|/b)/c', ''],
    ['/a[|]b', '/a'],
    ['/a\\|b', '/a|b'],
    ['/a(b|c)', '/a'],
    ['/a[)|]b|c', ''],
    ['.*', ''],
    ['(?=/a)/a', ''],
  ])('%s → %s', (source, prefix) => {
    expect(literalPrefix(source)).toBe(prefix);
  });

  it('tracks nested classes under the v flag', () => {
    expect(literalPrefix('/a[[|]--[b]]|c', true)).toBe('');
    expect(literalPrefix('/a[[|]--[b]]c', true)).toBe('/a');
  });

  it('is lower-cased for case-insensitive rules only', () => {
    expect(compilePattern('/Admin/.*', false).prefix).toBe('/admin/');
    expect(compilePattern('/Admin/.*', true).prefix).toBe('/Admin/');
  });
});
