import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Access, AuthorizationManager } from '../../src/authorization/index.js';
import { isProvablyLinear } from '../../src/authorization/linear-regex.js';
import { compilePathPattern } from '../../src/authorization/pattern.js';
import { analyseRegex } from '../../src/authorization/redos.js';
import { request, thrown } from './helpers.js';
import { authorizeSync } from './sync.js';

const admin = new Access().roles(['ADMIN']);

/** The fastest of a few runs of `fn`, in milliseconds. */
function time(fn: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    fn();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

describe('regex rules that backtrack catastrophically are refused (issue 15, defect 3)', () => {
  it('the attack: ^/(a+)+$ stalled the event loop on a short path; the pattern is refused', () => {
    // What the rule did once accepted: each extra byte doubles the time (bounded input).
    const regex = /^(?:^\/(a+)+$)$/su;
    const at = (n: number) => time(() => regex.test(`/${'a'.repeat(n)}!`));
    const short = at(16);
    const longer = at(22);
    expect(longer).toBeGreaterThan(short * 8); // 2^6 = 64 in theory: clearly super-linear
    const error = thrown(() => AuthorizationManager.requestMatcher().addMatcher('^/(a+)+$', admin));
    expect(error.code).toBe('ERR_INVALID_OPTION');
    expect(error.option).toBe('pattern');
    expect(error.message).toContain('^/(a+)+$');
    expect(error.message).toContain('exponential');
  });

  it.each([
    ['^/(a+)+$', 'exponential'],
    ['/(a|a)*', 'exponential'],
    ['/(.*)*x', 'exponential'],
    ['/x/(\\w+\\s?)+y', 'exponential'],
    ['/a/.*b.*c', 'polynomial'],
  ])('%s is refused (%s)', (pattern, complexity) => {
    const verdict = analyseRegex(pattern, 'isu');
    expect(verdict.safe).toBe(false);
    expect(verdict.by).toBe('recheck');
    expect(verdict.complexity).toContain(complexity);
    expect(() => AuthorizationManager.requestMatcher().addMatcher(pattern, admin)).toThrow(
      TypeError,
    );
  });

  it('path patterns compile to linear regexes, and long paths are still decided right', () => {
    const pattern = '/f/*.pdf/{name}.pdf/t?st*/{a}.{b}/**';
    const compiled = compilePathPattern(pattern, false);
    expect(analyseRegex(compiled.path?.regexSource ?? '', 'isu')).toMatchObject({ safe: true });
    const authorizer = AuthorizationManager.requestMatcher()
      .requestMatchers(pattern, admin)
      .anyRequest(Access.permitAll());
    const long = (unit: string) => `/f/${unit.repeat(Math.floor(8000 / unit.length))}`;
    // Each path at the length cap, decided in full (the first three miss a part the
    // pattern needs and fall to the catch-all; in the last, {a}.{b} takes the dots).
    for (const [path, open] of [
      [long('.pdf'), true],
      [`${long('.pdf')}/x`, true],
      [`/f/a.pdf/${'.pdf'.repeat(1900)}/`, true],
      [`/f/a.pdf/b.pdf/test/${'.'.repeat(7900)}/`, false],
    ] as const) {
      expect(authorizeSync(authorizer, null, request(path)).granted, path.slice(0, 40)).toBe(open);
    }
  });

  it('the constraint of a path variable is checked too', () => {
    const error = thrown(() =>
      AuthorizationManager.requestMatcher().requestMatchers('/users/{id:(?:a+)+}', admin),
    );
    expect(error.option).toBe('pattern');
    expect(error.message).toContain('backtrack');
  });

  it('accepts the usual rules, most of them without running the analyser', () => {
    for (const pattern of [
      '/admin/.*',
      '/admin(?:/.*)?',
      '/login|/logout',
      '/users/[0-9]+',
      '/api/v[0-9]+/items/[^/]+/.*',
      '/files/team1/(?:docs|images)/.*',
      '/oauth2/authorization/[^/]+|/login/oauth2/code/[^/]+',
    ]) {
      expect(isProvablyLinear(pattern, 'isu'), pattern).toBe(true);
      expect(analyseRegex(pattern, 'isu')).toEqual({
        safe: true,
        complexity: 'linear',
        by: 'proof',
      });
    }
    // Linear, but beyond the quick proof: the analyser says so.
    expect(analyseRegex('/api/.*/users/.*', 'isu')).toMatchObject({ safe: true, by: 'recheck' });
  });

  it('never calls a super-linear regex linear (the quick proof is conservative)', () => {
    for (const pattern of [
      '(a+)+',
      '(a|a)*',
      '(.*)*x',
      '.*a.*b',
      '.*[0-9]+/x',
      '/x/.*/users/.*', // linear in fact, but two ambiguous loops: left to the analyser
      'a?a?a?a?a?a?a?a?aaaaaaaa',
      '(a?){30}',
      '(a)\\1',
      '(?=a).*',
    ]) {
      expect(isProvablyLinear(pattern, 'isu'), pattern).toBe(false);
    }
  });

  it('1,000 regex rules of a common shape are decided by the quick proof, not the analyser', () => {
    const authorizer = AuthorizationManager.requestMatcher();
    for (let i = 0; i < 1000; i++) {
      const pattern = `/api/v1/resource${String(i)}(?:/.*)?`;
      expect(analyseRegex(pattern, 'isu').by).toBe('proof');
      authorizer.addMatcher(pattern, admin);
    }
    expect(authorizeSync(authorizer, null, request('/api/v1/resource999/x')).granted).toBe(false);
  });
});

describe('regex rules that look like globs are refused (issue 15, defect 4)', () => {
  it('the attack: addMatcher("/admin/*") left /admin/users open; now it is refused with a hint', () => {
    // As a regex, /admin/* is "/admin" and slashes: /admin/users does not match it.
    expect(/^(?:\/admin\/*)$/isu.test('/admin/users')).toBe(false);
    const error = thrown(() => AuthorizationManager.requestMatcher().addMatcher('/admin/*', admin));
    expect(error.option).toBe('pattern');
    expect(error.message).toContain('requestMatchers');
    expect(error.message).toContain('/admin/**');
  });

  it.each([
    '/admin/*',
    '/admin/*/edit',
    '/a/*|/b',
    '/files/**',
    /\/admin\/*/u,
    '/users/{id}',
    '/docs/{*rest}',
  ])('%s is refused', (pattern) => {
    const error = thrown(() => AuthorizationManager.requestMatcher().addMatcher(pattern, admin));
    expect(error.option).toBe('pattern');
    expect(error.message).toContain('path pattern');
  });

  it('regexes with a legitimate star are kept', () => {
    for (const pattern of ['/admin/.*', '/admin/[^/]*', '/a+/*b', '/x\\*']) {
      expect(() => AuthorizationManager.requestMatcher().addMatcher(pattern, admin)).not.toThrow();
    }
  });
});

describe('the analyser is loaded lazily', () => {
  it('importing portcullis and adding path patterns or common regexes never loads recheck', () => {
    const script = `
      import { createRequire } from 'node:module';
      const { Access, AuthorizationManager } = await import('./src/index.ts');
      AuthorizationManager.requestMatcher()
        .requestMatchers('/admin/**', Access.roles(['ADMIN']))
        .addMatcher('/api/.*', Access.authenticated());
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('recheck'));
      const before = loaded();
      try { AuthorizationManager.requestMatcher().addMatcher('/(a|a)*', Access.authenticated()); } catch {}
      console.log(JSON.stringify({ before, after: loaded() }));
    `;
    const output = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8', timeout: 60_000 },
    );
    expect(JSON.parse(output.trim().split('\n').at(-1) ?? '{}')).toEqual({
      before: false,
      after: true,
    });
  });
});
