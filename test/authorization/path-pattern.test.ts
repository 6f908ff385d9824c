import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Access,
  AuthorizationManager,
  type RequestMatcherAuthorizer,
} from '../../src/authorization/index.js';
import { compilePathPattern } from '../../src/authorization/pattern.js';
import { expr } from '../../src/expression/index.js';
import { request, thrown, user } from './helpers.js';
import { authorizeSync } from './sync.js';

const admin = new Access().roles(['ADMIN']);

/** Whether a path pattern (compiled as the authorizer does) matches a path. */
function matches(pattern: string, path: string, caseSensitive = false): boolean {
  const compiled = compilePathPattern(pattern, caseSensitive);
  return compiled.regex.test(path) && (compiled.check === undefined || compiled.check(path));
}

/** The rule set's verdict for an anonymous GET: 'granted' or the denial reason. */
function verdict(authorizer: RequestMatcherAuthorizer, path: string, who = user()): string {
  const decision = authorizeSync(authorizer, who, request(path));
  return decision.granted ? 'granted' : decision.reason;
}

describe('path patterns (Spring PathPattern syntax)', () => {
  it.each([
    ['/pages/t?st.html', '/pages/test.html', true],
    ['/pages/t?st.html', '/pages/tXst.html', true],
    ['/pages/t?st.html', '/pages/toast.html', false],
    ['/pages/t?st.html', '/pages/t/st.html', false],
    ['/files/*.pdf', '/files/report.pdf', true],
    ['/files/*.pdf', '/files/.pdf', true],
    ['/files/*.pdf', '/files/a/b.pdf', false],
    ['/files/*.pdf', '/files/report.pdfx', false],
    ['/admin/*', '/admin/users', true],
    ['/admin/*', '/admin', false],
    ['/admin/*', '/admin/', false],
    ['/admin/*', '/admin/a/b', false],
    ['/admin/**', '/admin', true],
    ['/admin/**', '/admin/', true],
    ['/admin/**', '/admin/users/42/edit', true],
    ['/admin/**', '/administrator', false],
    ['/admin/**', '/ADMIN/users', true],
    ['/**', '/', true],
    ['/**', '/anything/at/all', true],
    ['/users/{id}', '/users/42', true],
    ['/users/{id}', '/users/', false],
    ['/users/{id}', '/users/42/posts', false],
    ['/users/{id:[0-9]+}', '/users/42', true],
    ['/users/{id:[0-9]+}', '/users/alice', false],
    ['/users/{id:[0-9]+}/posts', '/users/42/posts', true],
    ['/docs/{*rest}', '/docs', true],
    ['/docs/{*rest}', '/docs/a/b', true],
    ['/docs/{*rest}', '/docsx', false],
    ['/a/{name}.{ext}', '/a/report.pdf', true],
    ['/users', '/users/', false], // Spring 6: a trailing slash is not optional
    ['/users/', '/users/', true],
    ['/users/', '/users', false],
    ['/a.b', '/aXb', false], // literal characters, never regex syntax
    ['/a+', '/aa', false],
  ])('%s on %s: %s', (pattern, path, expected) => {
    expect(matches(pattern, path)).toBe(expected);
  });

  it('follows caseSensitive', () => {
    expect(matches('/admin/**', '/Admin/x', true)).toBe(false);
    expect(matches('/admin/**', '/Admin/x', false)).toBe(true);
  });

  it('refuses what Spring refuses, and what can never match a normalized path', () => {
    for (const pattern of [
      'admin/**', // not absolute
      '/admin/**/edit', // ** before the end
      '/{*rest}/edit', // {*rest} before the end
      '/admin**', // ** inside a segment
      '/a//b', // empty segment
      '/a/../b', // dot segment
      '/users/{id', // unbalanced
      '/users/id}',
      '/users/{id}/{id}', // duplicate variable
      '/users/{user-id}', // not an identifier (unreadable as path.<name>)
      '/users/{id:(\\d+)}', // capturing group in the constraint
      '/users/{id:[}', // invalid regex
      '',
    ]) {
      const error = thrown(() =>
        AuthorizationManager.requestMatcher().requestMatchers(pattern, admin),
      );
      expect(error.code, pattern).toBe('ERR_INVALID_OPTION');
      expect(error.option, pattern).toBe('pattern');
    }
    expect(
      thrown(() => AuthorizationManager.requestMatcher().requestMatchers('/admin/**/edit', admin))
        .message,
    ).toContain('last segment');
  });

  it('the glob attack: /admin/* as a path pattern protects /admin/users', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .requestMatchers('/admin/*', admin)
      .anyRequest(Access.permitAll());
    expect(verdict(authorizer, '/admin/users')).toBe('forbidden');
    expect(verdict(authorizer, '/admin/users', user(['ADMIN']))).toBe('granted');
  });

  it('takes several patterns, methods, and shares first-match order with regex rules', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .requestMatchers(['/login', '/assets/**'], Access.permitAll())
      .addMatcher('/api/v[0-9]+/public/.*', Access.permitAll())
      .requestMatchers('/api/**', admin, { methods: ['POST'] })
      .requestMatchers('/api/**', Access.authenticated());
    expect(verdict(authorizer, '/assets/app.css', null as never)).toBe('granted');
    expect(verdict(authorizer, '/api/v2/public/x', null as never)).toBe('granted');
    expect(verdict(authorizer, '/api/v2/items')).toBe('granted');
    expect(authorizeSync(authorizer, user(), request('/api/v2/items', { method: 'POST' }))).toEqual(
      expect.objectContaining({ granted: false, reason: 'forbidden' }),
    );
    expect(verdict(authorizer, '/elsewhere', null as never)).toBe('unauthenticated');
  });

  it('reads captured variables from expressions: path.id == principal.username', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .requestMatchers(
        '/users/{id}/**',
        Access.expression("path.id == principal.username or hasRole('ADMIN')"),
      )
      .requestMatchers(
        '/files/{owner:[a-z]+}-{name}.txt',
        Access.expression(expr.eq(expr.path('owner'), expr.principal('username'))),
      )
      .requestMatchers('/docs/{*rest}', Access.expression("path.rest == '/public'"));
    expect(verdict(authorizer, '/users/alice/settings')).toBe('granted'); // user() is alice
    expect(verdict(authorizer, '/users/bob/settings')).toBe('forbidden');
    expect(verdict(authorizer, '/users/bob/settings', user(['ADMIN']))).toBe('granted');
    expect(verdict(authorizer, '/users/alice', null as never)).toBe('unauthenticated');
    expect(verdict(authorizer, '/files/alice-notes.txt')).toBe('granted');
    expect(verdict(authorizer, '/files/bob-notes.txt')).toBe('forbidden');
    expect(verdict(authorizer, '/docs/public')).toBe('granted');
    expect(verdict(authorizer, '/docs/secret')).toBe('forbidden');
  });

  it('refuses an expression that reads a variable the pattern does not capture', () => {
    const reads = Access.expression('path.id == principal.username');
    for (const build of [
      () => AuthorizationManager.requestMatcher().requestMatchers('/users/{userId}', reads),
      () => AuthorizationManager.requestMatcher().requestMatchers('/users/**', reads),
      () => AuthorizationManager.requestMatcher().addMatcher('/users/[^/]+', reads),
      () => AuthorizationManager.requestMatcher().anyRequest(reads),
    ]) {
      const error = thrown(build);
      expect(error.option).toBe('access');
      expect(error.message).toContain('path.id');
    }
  });

  it('never reads path variables as args, nor args as path variables', () => {
    expect(thrown(() => Access.expression('args.id == principal.username')).option).toBe(
      'expression',
    );
  });

  it('a path pattern without wildcards matches exactly its literal path (property)', () => {
    const segment = fc
      .stringMatching(/^[a-z0-9._~-]{1,8}$/u)
      .filter((s) => s !== '.' && s !== '..');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), segment, (segments, other) => {
        const path = `/${segments.join('/')}`;
        expect(matches(path, path)).toBe(true);
        expect(matches(path, `${path}/${other}`)).toBe(false);
        expect(matches(path, `${path}/`)).toBe(false);
        const changed = `/${[...segments.slice(0, -1), `${segments.at(-1) ?? ''}${other}`].join('/')}`;
        expect(matches(path, changed)).toBe(false);
      }),
    );
  });

  it('** matches every suffix of its prefix, and nothing beside it (property)', () => {
    const segment = fc
      .stringMatching(/^[a-zA-Z0-9._~-]{1,8}$/u)
      .filter((s) => s !== '.' && s !== '..');
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 3 }),
        fc.array(segment, { maxLength: 4 }),
        fc.boolean(),
        (prefix, suffix, slash) => {
          const base = `/${prefix.join('/')}`;
          const path = `${base}${suffix.map((s) => `/${s}`).join('')}${slash ? '/' : ''}`;
          expect(matches(`${base}/**`, path)).toBe(true);
          expect(matches(`${base}/**`, `${base}x${suffix.map((s) => `/${s}`).join('')}`)).toBe(
            false,
          );
          const captured = AuthorizationManager.requestMatcher()
            .requestMatchers(
              `${base}/{*rest}`,
              Access.expression(expr.eq(expr.path('rest'), path.slice(base.length))),
            )
            .authorize(user(), request(path));
          expect(captured).toEqual({ granted: true });
        },
      ),
    );
  });
});
