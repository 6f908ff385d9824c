import { describe, expect, it } from 'vitest';
import {
  Access,
  AuthorizationManager,
  Firewall,
  type FirewallOptions,
} from '../../src/authorization/index.js';
import type { AuthenticatedUser } from '../../src/core/index.js';
import { request, user } from './helpers.js';
import { authorizeSync } from './sync.js';

/**
 * The rules of a typical app: `/admin` and everything under it needs ADMIN, the
 * rest of the site is public (an explicit choice: unmatched paths need a login).
 */
function rules(caseSensitive = false) {
  return AuthorizationManager.requestMatcher()
    .caseSensitive(caseSensitive)
    .httpBasic()
    .addMatcher('^/admin(?:/.*)?', new Access().roles(['ADMIN']))
    .anyRequest(Access.permitAll());
}

/** Firewall, then authorizer, as the SecurityTransform runs them: the status answered (200 = handler). */
function status(
  url: string,
  options: { firewall?: FirewallOptions; method?: string; who?: AuthenticatedUser | null } = {},
): number {
  const req = request(url, { method: options.method ?? 'GET' });
  const firewall = new Firewall(options.firewall);
  const reason = firewall.check(req);
  if (reason !== null) return firewall.reject(reason, req).status;
  const authorizer = rules();
  const decision = authorizeSync(authorizer, options.who ?? null, req);
  return decision.granted ? 200 : authorizer.onDenied(decision, req).status;
}

describe('attacks on URL rules', () => {
  it('the baseline: /admin needs a login, the public site does not', () => {
    expect(status('/admin')).toBe(401);
    expect(status('/admin/users')).toBe(401);
    expect(status('/admin/users', { who: user() })).toBe(403);
    expect(status('/admin/users', { who: user(['ADMIN']) })).toBe(200);
    expect(status('/public')).toBe(200);
  });

  it('/admin/%0a: rejected by the firewall; denied by the rule (s flag) if line breaks are allowed', () => {
    expect(status('/admin/%0a')).toBe(400);
    expect(status('/admin/%0a', { firewall: { dangerouslyAllowCrLf: true } })).toBe(401);
  });

  it('/%61dmin: legal encoding passes the firewall, and its decoded path /admin is denied', () => {
    expect(new Firewall().check(request('/%61dmin'))).toBeNull();
    expect(status('/%61dmin')).toBe(401);
    expect(status('/%61dmin/users', { who: user() })).toBe(403);
  });

  it('//admin: rejected; denied as /admin if double slashes are allowed', () => {
    expect(status('//admin')).toBe(400);
    expect(status('//admin', { firewall: { allowDoubleSlash: true } })).toBe(401);
    expect(
      status('/public//..//admin', {
        firewall: { allowDoubleSlash: true, allowDotSegments: true },
      }),
    ).toBe(401);
  });

  it('/admin/..;/ (Tomcat path parameters): rejected, even with semicolons allowed', () => {
    expect(status('/admin/..;/')).toBe(400);
    expect(status('/admin/..;/', { firewall: { allowSemicolon: true } })).toBe(400);
    expect(status('/public/..;/admin', { firewall: { allowSemicolon: true } })).toBe(400);
  });

  it('/admin/%2e%2e/ and /./admin: rejected; resolved before matching if allowed', () => {
    expect(status('/admin/%2e%2e/')).toBe(400);
    expect(status('/public/%2e%2e/admin')).toBe(400);
    expect(status('/public/.%2E/admin')).toBe(400);
    expect(status('/./admin')).toBe(400);
    expect(status('/./admin', { firewall: { allowDotSegments: true } })).toBe(401);
    expect(
      status('/public/%2e%2e/admin', {
        firewall: { allowDotSegments: true, allowUrlEncodedPeriod: true },
      }),
    ).toBe(401);
  });

  it('/admin%2f.. and /admin%00 are rejected', () => {
    expect(status('/admin%2f..')).toBe(400);
    expect(status('/admin%2F')).toBe(400);
    expect(status('/admin%00')).toBe(400);
    expect(status('/admin%00.json')).toBe(400);
    expect(status('/admin%2500')).toBe(400);
  });

  it('/ADMIN is denied with the default case-insensitive matching', () => {
    expect(status('/ADMIN')).toBe(401);
    expect(status('/aDmIn/users', { who: user() })).toBe(403);
    expect(status('/%41DMIN')).toBe(401);
  });

  it('absolute-form targets are matched on their path', () => {
    expect(status('http://evil.example/admin')).toBe(401);
    expect(status('HTTPS://evil.example:8443/admin/x?y=1')).toBe(401);
    // Userinfo in the authority is not a valid host[:port]: refused by the firewall.
    expect(status('http://user@evil.example/admin')).toBe(400);
    expect(status('http://evil.example\\admin')).toBe(400);
  });

  it('overlong paths and unusual methods are rejected', () => {
    expect(status(`/admin/${'a'.repeat(10_000)}`)).toBe(400);
    expect(status('/admin', { method: 'TRACE' })).toBe(400);
    expect(status('/admin', { method: 'PROPFIND' })).toBe(400);
    expect(status('/admin', { method: 'HEAD' })).toBe(401);
  });

  it('/admin\\ with backslashes allowed is matched as /admin/', () => {
    const firewall = new Firewall({ allowBackslash: true, allowDotSegments: true });
    const authorizer = AuthorizationManager.requestMatcher().addMatcher(
      '^/admin/.*',
      new Access().roles(['ADMIN']),
    );
    for (const url of ['/admin\\', '/admin/x\\..', '/admin\\x']) {
      const req = request(url);
      expect(firewall.check(req)).toBeNull();
      expect(authorizeSync(authorizer, null, req).granted).toBe(false);
    }
  });

  it('a case-sensitive rule set lets /ADMIN through (why case-insensitive is the default)', () => {
    const req = request('/ADMIN/dashboard');
    expect(authorizeSync(rules(true), null, req).granted).toBe(true);
    expect(authorizeSync(rules(false), null, req).granted).toBe(false);
  });
});
