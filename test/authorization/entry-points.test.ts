import { describe, expect, it } from 'vitest';
import {
  Access,
  AuthorizationManager,
  errorResponse,
  isBrowserNavigation,
  loginRedirect,
} from '../../src/authorization/index.js';
import type {
  AuthenticatedUser,
  AuthorizationDecision,
  SecurityRequest,
} from '../../src/core/index.js';
import { request, user } from './helpers.js';
import { authorizeSync } from './sync.js';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function authorizer() {
  return AuthorizationManager.requestMatcher()
    .loginUrl('/login')
    .httpBasic()
    .addMatcher('/login', Access.permitAll())
    .addMatcher('/secret-admin-area/.*', new Access().roles(['ADMIN']))
    .anyRequest(new Access());
}

function deny(
  target: ReturnType<typeof authorizer>,
  req: SecurityRequest,
  who: AuthenticatedUser | null = user(),
) {
  const decision: AuthorizationDecision = authorizeSync(target, who, req);
  if (decision.granted) throw new Error('expected a denial');
  return target.onDenied(decision, req);
}

describe('onDenied (entry points)', () => {
  it('redirects an anonymous browser navigation to the login URL', () => {
    const req = request('/account', { headers: { accept: HTML } });
    const response = deny(authorizer(), req, null);
    expect(response).toEqual({
      status: 302,
      headers: { location: '/login', 'cache-control': 'no-store' },
      body: '',
    });
  });

  it('answers 401 with the challenges to XHR, API clients and clients without Accept', () => {
    for (const headers of [
      { accept: HTML, 'x-requested-with': 'XMLHttpRequest' },
      { accept: 'application/json' },
      { accept: 'text/html;q=0' },
      {},
    ]) {
      const response = deny(authorizer(), request('/account', { headers }), null);
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe(
        'Basic realm="Restricted", charset="UTF-8"',
      );
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers.location).toBeUndefined();
    }
  });

  it('never redirects a request for the login page itself (no loop)', () => {
    const target = AuthorizationManager.requestMatcher()
      .loginUrl('/login?from=app')
      .anyRequest(new Access());
    for (const url of ['/login', '/LOGIN', '/login?x=1', '/./login']) {
      const req = request(url, { headers: { accept: HTML } });
      expect(deny(target, req, null).status).toBe(401);
    }
    const other = deny(target, request('/home', { headers: { accept: HTML } }), null);
    expect(other.headers.location).toBe('/login?from=app');
  });

  it('answers 401 without a WWW-Authenticate header when no challenge is configured', () => {
    const target = AuthorizationManager.requestMatcher().anyRequest(new Access());
    const response = deny(target, request('/x', { headers: { accept: HTML } }), null);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBeUndefined();
    expect(response.body).toBe('Unauthorized');
  });

  it('joins several challenges and escapes the realm', () => {
    const target = AuthorizationManager.requestMatcher()
      .httpBasic('say "hi" \\ bye')
      .challenge('Bearer realm="api"')
      .anyRequest(new Access());
    expect(deny(target, request('/x'), null).headers['www-authenticate']).toBe(
      'Basic realm="say \\"hi\\" \\\\ bye", charset="UTF-8", Bearer realm="api"',
    );
  });

  it('answers 403 to an authenticated user who lacks the right, even from a browser', () => {
    const req = request('/secret-admin-area/x', { headers: { accept: HTML } });
    const response = deny(authorizer(), req);
    expect(response.status).toBe(403);
    expect(response.headers['www-authenticate']).toBeUndefined();
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toBe('Forbidden');
  });

  it('answers problem details JSON to clients that prefer JSON, never with the rule', () => {
    for (const accept of [
      'application/json',
      'application/problem+json',
      'text/html;q=0.5, application/json',
    ]) {
      const response = deny(authorizer(), request('/secret-admin-area/x', { headers: { accept } }));
      expect(response.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(response.body)).toEqual({
        type: 'about:blank',
        title: 'Forbidden',
        status: 403,
      });
      expect(response.body).not.toContain('secret-admin-area');
      expect(response.body).not.toContain('ADMIN');
    }
    const html = deny(
      authorizer(),
      request('/secret-admin-area/x', { headers: { accept: 'text/html, application/json;q=0.9' } }),
    );
    expect(html.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(html.body).not.toContain('ADMIN');
  });

  it('forces the body format with problemDetails(boolean)', () => {
    const json = authorizer().problemDetails(true);
    expect(deny(json, request('/secret-admin-area/x')).headers['content-type']).toBe(
      'application/problem+json',
    );
    const text = authorizer().problemDetails(false);
    const req = request('/secret-admin-area/x', { headers: { accept: 'application/json' } });
    expect(deny(text, req).headers['content-type']).toBe('text/plain; charset=utf-8');
  });
});

describe('entry-point helpers', () => {
  it('isBrowserNavigation reads Accept and X-Requested-With', () => {
    expect(isBrowserNavigation(request('/', { headers: { accept: HTML } }))).toBe(true);
    expect(isBrowserNavigation(request('/', { headers: { accept: 'TEXT/HTML; q=0.1' } }))).toBe(
      true,
    );
    expect(isBrowserNavigation(request('/', { headers: { accept: '*/*' } }))).toBe(false);
    expect(isBrowserNavigation(request('/', { headers: { accept: 'text/html;q=0' } }))).toBe(false);
    expect(
      isBrowserNavigation(
        request('/', { headers: { accept: HTML, 'x-requested-with': 'xmlhttprequest' } }),
      ),
    ).toBe(false);
  });

  it('errorResponse and loginRedirect build complete responses', () => {
    const response = errorResponse(
      400,
      request('/x?y', { headers: { accept: 'application/json' } }),
      {
        headers: { 'x-extra': '1' },
      },
    );
    expect(response).toEqual({
      status: 400,
      headers: {
        'x-extra': '1',
        'content-type': 'application/problem+json',
        'cache-control': 'no-store',
      },
      body: '{"type":"about:blank","title":"Bad Request","status":400}',
    });
    expect(loginRedirect('/login').status).toBe(302);
  });
});
