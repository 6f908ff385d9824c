import { describe, expect, it } from 'vitest';
import { Access, AuthorizationManager } from '../../src/authorization/index.js';
import { compileExpression } from '../../src/expression/index.js';
import { request, thrown, user } from './helpers.js';
import { authorizeSync } from './sync.js';

const admin = new Access().roles(['ADMIN']);

describe('rules that can never match are refused (issue 15, defect 2)', () => {
  it('the attack: addMatcher("admin/.*") protected nothing; now it is refused', () => {
    const error = thrown(() => AuthorizationManager.requestMatcher().addMatcher('admin/.*', admin));
    expect(error.code).toBe('ERR_INVALID_OPTION');
    expect(error.option).toBe('pattern');
    expect(error.message).toContain('admin/.*');
    expect(error.message).toContain('never match');
  });

  it('refuses a dead alternative and a leading ^ without a slash; accepts what can match', () => {
    for (const pattern of ['/login|assets/.*', '^admin', 'api(?:/.*)?']) {
      expect(
        thrown(() => AuthorizationManager.requestMatcher().addMatcher(pattern, admin)).option,
      ).toBe('pattern');
    }
    for (const pattern of ['/admin/.*', '^/admin', '.*/admin', '[/]admin', '(?:/a|/b)/c']) {
      expect(() => AuthorizationManager.requestMatcher().addMatcher(pattern, admin)).not.toThrow();
    }
  });
});

describe('rules shadowed by earlier rules are refused (issue 15, defect 2)', () => {
  it('the attack: /admin/.* permitAll then /admin/users ADMIN left the second rule dead', () => {
    const authorizer = AuthorizationManager.requestMatcher().addMatcher(
      '/admin/.*',
      Access.permitAll(),
    );
    const error = thrown(() => authorizer.addMatcher('/admin/users', admin));
    expect(error.option).toBe('pattern');
    expect(error.message).toContain('/admin/users');
    expect(error.message).toContain('/admin/.* → permitAll');
    // The authorizer is unchanged: the refused rule was not added.
    expect(authorizeSync(authorizer, null, request('/admin/users')).granted).toBe(true);
  });

  it('decides path patterns structurally: /admin/** covers /admin/users/{id}', () => {
    const base = () =>
      AuthorizationManager.requestMatcher().requestMatchers('/admin/**', Access.permitAll());
    for (const later of [
      '/admin/users/{id}',
      '/admin',
      '/admin/*',
      '/admin/{*rest}',
      '/admin/x/**',
    ]) {
      expect(thrown(() => base().requestMatchers(later, admin)).option, later).toBe('pattern');
    }
    expect(
      thrown(() =>
        AuthorizationManager.requestMatcher()
          .requestMatchers('/users/{id}', Access.authenticated())
          .requestMatchers('/users/me', admin),
      ).option,
    ).toBe('pattern');
    expect(
      thrown(() =>
        AuthorizationManager.requestMatcher()
          .requestMatchers('/files/*.pdf', Access.authenticated())
          .requestMatchers('/files/report.pdf', admin),
      ).option,
    ).toBe('pattern');
  });

  it('a regex rule is checked against earlier path patterns and the other way round', () => {
    expect(
      thrown(() =>
        AuthorizationManager.requestMatcher()
          .requestMatchers('/admin/**', Access.permitAll())
          .addMatcher('/admin/users', admin),
      ).option,
    ).toBe('pattern');
    expect(
      thrown(() =>
        AuthorizationManager.requestMatcher()
          .addMatcher('/admin/.*', Access.permitAll())
          .requestMatchers('/admin/users', admin),
      ).option,
    ).toBe('pattern');
    // A regex of literal alternatives is dead when every alternative is taken.
    expect(
      thrown(() =>
        AuthorizationManager.requestMatcher()
          .addMatcher('/login', Access.permitAll())
          .addMatcher('/logout', Access.permitAll())
          .addMatcher('/login|/logout', admin),
      ).message,
    ).toContain('/login → permitAll and /logout → permitAll');
  });

  it('takes methods into account: a GET rule does not shadow a POST rule', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .requestMatchers('/posts/**', Access.permitAll(), { methods: ['GET'] })
      .requestMatchers('/posts/{id}', admin, { methods: ['POST'] })
      .requestMatchers('/posts/{id}', Access.authenticated());
    const post = authorizeSync(authorizer, user(), request('/posts/1', { method: 'POST' }));
    expect(post.granted).toBe(false);
    // ...but an earlier rule for every method shadows a later GET rule.
    expect(
      thrown(() =>
        AuthorizationManager.requestMatcher()
          .requestMatchers('/posts/**', Access.permitAll())
          .requestMatchers('/posts/{id}', admin, { methods: ['GET'] }),
      ).option,
    ).toBe('pattern');
    // GET covers HEAD, so GET + HEAD rules shadow a later HEAD rule.
    expect(
      thrown(() =>
        AuthorizationManager.requestMatcher()
          .requestMatchers('/posts/**', Access.permitAll(), { methods: ['GET'] })
          .requestMatchers('/posts/x', admin, { methods: ['HEAD'] }),
      ).option,
    ).toBe('pattern');
  });

  it('lets through what it cannot decide, and the more specific rule first', () => {
    expect(() =>
      AuthorizationManager.requestMatcher()
        .requestMatchers('/admin/users', admin)
        .requestMatchers('/admin/**', Access.authenticated())
        .addMatcher('/admin/.*', Access.permitAll()) // regex after regex-like: undecidable here
        .addMatcher('/api/[a-z]+', admin)
        .addMatcher('/api/[a-z0-9]+', Access.authenticated()),
    ).not.toThrow();
    // A case-sensitive earlier rule cannot shadow a case-insensitive literal.
    const authorizer = AuthorizationManager.requestMatcher()
      .caseSensitive(true)
      .addMatcher('/admin/users', Access.permitAll())
      .addMatcher(/\/admin\/users/i, admin);
    expect(authorizeSync(authorizer, null, request('/ADMIN/users')).granted).toBe(false);
  });
});

describe('deny by default (issue 15, defect 5: the URL half)', () => {
  it('the attack: a forgotten rule left a path public; now it needs a login', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .httpBasic()
      .requestMatchers('/admin/**', admin);
    const decision = authorizeSync(authorizer, null, request('/internal/metrics'));
    expect(decision.granted).toBe(false);
    if (decision.granted) return;
    expect(decision.reason).toBe('unauthenticated');
    expect(authorizer.onDenied(decision, request('/internal/metrics')).status).toBe(401);
    expect(authorizeSync(authorizer, user(), request('/internal/metrics')).granted).toBe(true);
  });

  it('anyRequest(Access.permitAll()) restores "a path that matches no rule is public"', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .requestMatchers('/admin/**', admin)
      .anyRequest(Access.permitAll());
    expect(authorizeSync(authorizer, null, request('/internal/metrics')).granted).toBe(true);
  });

  it('the plain-object form: rules and anyRequest from a configuration file', () => {
    const authorizer = AuthorizationManager.requestMatcher({
      httpBasic: true,
      rules: [
        { paths: ['/login', '/assets/**'], access: 'permitAll' },
        { paths: '/users/{id}', access: 'path.id == principal.username' },
        { regex: '/api/v[0-9]+/.*', access: "hasRole('ADMIN')", methods: 'POST' },
      ],
      anyRequest: 'authenticated',
    });
    expect(authorizeSync(authorizer, null, request('/assets/a.css')).granted).toBe(true);
    expect(authorizeSync(authorizer, user(), request('/users/alice')).granted).toBe(true);
    expect(authorizeSync(authorizer, user(), request('/users/bob')).granted).toBe(false);
    expect(
      authorizeSync(authorizer, user(), request('/api/v1/x', { method: 'POST' })).granted,
    ).toBe(false);
    expect(authorizeSync(authorizer, null, request('/other')).granted).toBe(false);
    for (const bad of [
      { rules: [{ access: 'permitAll' }] },
      { rules: [{ paths: '/a', regex: '/a', access: 'permitAll' }] },
      { rules: [{ paths: '/a', access: '' }] },
      { rules: [{ paths: '/a', acess: 'permitAll' }] },
      { rules: 'x' },
    ]) {
      expect(() => AuthorizationManager.requestMatcher(bad as never)).toThrow(TypeError);
    }
  });
});

describe('names and messages (issue 15, defect 12)', () => {
  it("hasRole('') and friends are refused when the expression is compiled", () => {
    for (const text of ["hasRole('')", "hasAnyAuthority('a', '')", 'hasAuthority("")']) {
      expect(() => compileExpression(text), text).toThrow(
        expect.objectContaining({ code: 'ERR_EXPRESSION_ARGUMENT_TYPE' }),
      );
      expect(() => new Access().expression(text), text).toThrow();
    }
    expect(() => compileExpression("principal.username == ''")).not.toThrow();
    expect(thrown(() => Access.roles([''])).option).toBe('roles');
    expect(thrown(() => new Access().authorities(['ok', ''])).option).toBe('authorities');
  });

  it('an empty list names what is missing in plain English', () => {
    expect(thrown(() => new Access().authorities([])).message).toBe(
      'authorities: must name at least one authority',
    );
    expect(thrown(() => new Access().roles([])).message).toBe('roles: must name at least one role');
  });
});
