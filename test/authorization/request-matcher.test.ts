import { describe, expect, it } from 'vitest';
import {
  Access,
  AuthorizationManager,
  RequestMatcherAuthorizer,
} from '../../src/authorization/index.js';
import { GRANTED, type AuthorizationDecision } from '../../src/core/index.js';
import { request, thrown, user } from './helpers.js';
import { authorizeSync } from './sync.js';

type Denial = Extract<AuthorizationDecision, { granted: false }>;

function denial(decision: AuthorizationDecision): Denial {
  if (decision.granted) throw new Error('expected a denial');
  return decision;
}

const admin = new Access().roles(['ADMIN']);

describe('RequestMatcherAuthorizer.authorize', () => {
  it('is created by AuthorizationManager.requestMatcher()', () => {
    expect(AuthorizationManager.requestMatcher()).toBeInstanceOf(RequestMatcherAuthorizer);
  });

  it('denies by default: an unmatched path needs a login; anyRequest(permitAll) makes it public', () => {
    const closed = AuthorizationManager.requestMatcher().addMatcher('/admin/.*', admin);
    const decision = denial(authorizeSync(closed, null, request('/public')));
    expect(decision.reason).toBe('unauthenticated');
    expect(decision.rule).toBe('anyRequest (default) → isAuthenticated()');
    expect(authorizeSync(closed, user(), request('/public'))).toBe(GRANTED);
    const explicit = AuthorizationManager.requestMatcher()
      .addMatcher('/admin/.*', admin)
      .anyRequest(new Access());
    expect(denial(authorizeSync(explicit, null, request('/public'))).rule).toBe(
      'anyRequest → isAuthenticated()',
    );
    // SPEC.md's "a path that matches no rule is public", as an explicit choice.
    const open = AuthorizationManager.requestMatcher()
      .addMatcher('/admin/.*', admin)
      .anyRequest(Access.permitAll());
    expect(authorizeSync(open, null, request('/public'))).toBe(GRANTED);
  });

  it('anchors patterns fully: no substring matches', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .addMatcher('/admin', admin)
      .anyRequest(Access.permitAll());
    expect(denial(authorizeSync(authorizer, null, request('/admin'))).reason).toBe(
      'unauthenticated',
    );
    expect(authorizeSync(authorizer, null, request('/public/admin'))).toBe(GRANTED);
    expect(authorizeSync(authorizer, null, request('/admin/x'))).toBe(GRANTED);
    expect(authorizeSync(authorizer, null, request('/adminx'))).toBe(GRANTED);
  });

  it('tries rules in insertion order, first match wins', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .addMatcher('/admin/public', Access.permitAll())
      .addMatcher('/admin/.*', admin);
    expect(authorizeSync(authorizer, null, request('/admin/public'))).toBe(GRANTED);
    // A third rule for /admin/public could never apply: refused (rule-validation.test.ts).
    expect(thrown(() => authorizer.addMatcher('/admin/public', Access.denyAll())).option).toBe(
      'pattern',
    );
    expect(denial(authorizeSync(authorizer, user(), request('/admin/x'))).reason).toBe('forbidden');
    expect(authorizeSync(authorizer, user(['ADMIN']), request('/admin/x'))).toBe(GRANTED);
  });

  it('describes the denying rule as pattern → access', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .addMatcher('/admin/.*', admin.authorities(['users:write']))
      .addMatcher('/api/.*', Access.denyAll(), { methods: ['DELETE'] });
    expect(denial(authorizeSync(authorizer, user(), request('/admin/x'))).rule).toBe(
      "/admin/.* → hasAnyRole('ADMIN') and hasAnyAuthority('users:write')",
    );
    expect(
      denial(authorizeSync(authorizer, user(), request('/api/x', { method: 'DELETE' }))).rule,
    ).toBe('/api/.* [DELETE] → denyAll');
  });

  it('matches the decoded, normalized path without the query', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .addMatcher('/admin/.*', admin)
      .anyRequest(Access.permitAll());
    for (const url of ['/%61dmin/x', '/admin/x?next=/public', '/public/../admin/x', '/admin//x']) {
      expect(denial(authorizeSync(authorizer, null, request(url))).reason).toBe('unauthenticated');
    }
    expect(authorizeSync(authorizer, null, request('/public?x=/admin/x'))).toBe(GRANTED);
  });

  it('matches . across line breaks (s flag) and code points (u flag)', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .addMatcher('/admin/.*', admin)
      .addMatcher('/emoji/.', admin);
    expect(denial(authorizeSync(authorizer, null, request('/admin/%0a'))).reason).toBe(
      'unauthenticated',
    );
    expect(denial(authorizeSync(authorizer, null, request('/emoji/😀'))).reason).toBe(
      'unauthenticated',
    );
  });

  it('matches case-insensitively by default, as Express routes', () => {
    const authorizer = AuthorizationManager.requestMatcher().addMatcher('^/admin/.*', admin);
    for (const url of ['/ADMIN/dashboard', '/Admin/x', '/%41DMIN/x']) {
      expect(denial(authorizeSync(authorizer, null, request(url))).reason).toBe('unauthenticated');
    }
  });

  it('matches case-sensitively after caseSensitive(true), keeping a RegExp’s i flag', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .caseSensitive(true)
      .addMatcher('/admin/.*', admin)
      .addMatcher(/\/ops\/.*/i, admin)
      .anyRequest(Access.permitAll());
    expect(denial(authorizeSync(authorizer, null, request('/admin/x'))).reason).toBe(
      'unauthenticated',
    );
    expect(authorizeSync(authorizer, null, request('/ADMIN/x'))).toBe(GRANTED);
    expect(denial(authorizeSync(authorizer, null, request('/OPS/x'))).reason).toBe(
      'unauthenticated',
    );
  });

  it('restricts rules to methods; other methods fall through; GET covers HEAD', () => {
    const authorizer = AuthorizationManager.requestMatcher()
      .addMatcher('/posts', admin, { methods: ['post', 'DELETE'] })
      .addMatcher('/reports', admin, 'GET')
      .addMatcher('/posts', Access.permitAll())
      .anyRequest(Access.permitAll());
    expect(
      denial(authorizeSync(authorizer, user(), request('/posts', { method: 'POST' }))).reason,
    ).toBe('forbidden');
    expect(
      denial(authorizeSync(authorizer, user(), request('/posts', { method: 'DELETE' }))).reason,
    ).toBe('forbidden');
    expect(authorizeSync(authorizer, null, request('/posts', { method: 'GET' }))).toBe(GRANTED);
    expect(
      denial(authorizeSync(authorizer, null, request('/reports', { method: 'HEAD' }))).reason,
    ).toBe('unauthenticated');
    expect(authorizeSync(authorizer, null, request('/reports', { method: 'POST' }))).toBe(GRANTED);
  });

  it('behaves the same with a thousand rules', () => {
    const authorizer = AuthorizationManager.requestMatcher();
    for (let i = 0; i < 1000; i++) authorizer.addMatcher(`/api/r${i}/.*`, Access.permitAll());
    authorizer.addMatcher('/api/.*', admin).anyRequest(Access.denyAll());
    expect(authorizeSync(authorizer, null, request('/api/r999/x'))).toBe(GRANTED);
    expect(authorizeSync(authorizer, null, request('/API/R500/x'))).toBe(GRANTED);
    expect(denial(authorizeSync(authorizer, null, request('/api/r1000/x'))).rule).toBe(
      "/api/.* → hasAnyRole('ADMIN')",
    );
    expect(denial(authorizeSync(authorizer, user(), request('/other'))).rule).toBe(
      'anyRequest → denyAll',
    );
  });

  it('is pure: the same decision every time, no state between requests', () => {
    const authorizer = AuthorizationManager.requestMatcher().addMatcher(/\/admin/gy, admin);
    for (let i = 0; i < 3; i++) {
      expect(denial(authorizeSync(authorizer, null, request('/admin'))).reason).toBe(
        'unauthenticated',
      );
    }
  });
});

describe('RequestMatcherAuthorizer configuration', () => {
  it('rejects invalid patterns when they are added', () => {
    for (const pattern of ['[', '/a)|(.*', '']) {
      const error = thrown(() => AuthorizationManager.requestMatcher().addMatcher(pattern, admin));
      expect(error.code).toBe('ERR_INVALID_OPTION');
      expect(error.option).toBe('pattern');
    }
  });

  it('rejects a rule after anyRequest, a second anyRequest and a non-Access', () => {
    const authorizer = AuthorizationManager.requestMatcher().anyRequest(new Access());
    expect(thrown(() => authorizer.addMatcher('/x', admin)).option).toBe('addMatcher');
    expect(thrown(() => authorizer.anyRequest(admin)).option).toBe('anyRequest');
    const fake = { check: () => 'granted' } as unknown as Access;
    expect(thrown(() => AuthorizationManager.requestMatcher().addMatcher('/x', fake)).option).toBe(
      'access',
    );
  });

  it('rejects caseSensitive after the first rule', () => {
    const authorizer = AuthorizationManager.requestMatcher().addMatcher('/x', admin);
    expect(thrown(() => authorizer.caseSensitive(true)).option).toBe('caseSensitive');
  });

  it('validates method options, with a hint for a typo', () => {
    const typo = thrown(() =>
      AuthorizationManager.requestMatcher().addMatcher('/x', admin, {
        method: ['POST'],
      } as never),
    );
    expect(typo.code).toBe('ERR_INVALID_OPTION');
    expect(typo.option).toBe('method');
    expect(typo.message).toContain('"methods"');
    for (const methods of [[], ['GE T'], [42], 'GET\r\n']) {
      const error = thrown(() =>
        AuthorizationManager.requestMatcher().addMatcher('/x', admin, { methods } as never),
      );
      expect(error.option).toBe('methods');
    }
  });

  it('validates the login URL as a same-origin absolute path', () => {
    for (const url of [
      'login',
      '//evil.example',
      '/\\evil.example',
      'https://evil.example/',
      '/a b',
      '/a\r\nSet-Cookie: x',
      '/é',
      '',
    ]) {
      const error = thrown(() => AuthorizationManager.requestMatcher().loginUrl(url));
      expect(error.code).toBe('ERR_INVALID_OPTION');
      expect(error.option).toBe('loginUrl');
    }
    expect(() => AuthorizationManager.requestMatcher().loginUrl('/login?next=%2F')).not.toThrow();
  });

  it('validates realms and challenges', () => {
    for (const realm of ['a\r\nb', 'tab\there', 'é', '\u0000']) {
      expect(thrown(() => AuthorizationManager.requestMatcher().httpBasic(realm)).option).toBe(
        'httpBasic',
      );
    }
    expect(thrown(() => AuthorizationManager.requestMatcher().httpBasic().httpBasic()).option).toBe(
      'httpBasic',
    );
    for (const value of ['', ' Bearer', 'Bearer realm="a"\r\nX: y', 'Bea rer\u0001', '"x"']) {
      expect(thrown(() => AuthorizationManager.requestMatcher().challenge(value)).option).toBe(
        'challenge',
      );
    }
  });

  it('accepts its scalar settings as an options object', () => {
    const authorizer = AuthorizationManager.requestMatcher({
      loginUrl: '/login',
      httpBasic: 'Admin area',
      challenges: ['Bearer realm="api"'],
      caseSensitive: true,
      problemDetails: true,
    })
      .addMatcher('/admin', admin)
      .anyRequest(Access.permitAll());
    expect(authorizeSync(authorizer, null, request('/ADMIN'))).toBe(GRANTED);
    const response = authorizer.onDenied(
      denial(authorizeSync(authorizer, null, request('/admin'))),
      request('/admin'),
    );
    expect(response.headers['www-authenticate']).toBe(
      'Basic realm="Admin area", charset="UTF-8", Bearer realm="api"',
    );
    expect(response.headers['content-type']).toBe('application/problem+json');
    const typo = thrown(() => AuthorizationManager.requestMatcher({ loginURL: '/x' } as never));
    expect(typo.option).toBe('loginURL');
    expect(typo.message).toContain('"loginUrl"');
    expect(thrown(() => new RequestMatcherAuthorizer({ httpBasic: 1 } as never)).option).toBe(
      'httpBasic',
    );
    expect(
      thrown(() => new RequestMatcherAuthorizer({ challenges: 'Bearer' } as never)).option,
    ).toBe('challenges');
  });
});
