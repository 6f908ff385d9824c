import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Access, AuthorizationManager } from '../../src/index.js';
import { safeRedirectTarget } from '../../src/session/index.js';
import { request } from './support.js';

const FALLBACK = '/home';

describe('safeRedirectTarget', () => {
  it.each([
    ['/', '/'],
    ['/me', '/me'],
    ['/me?tab=1&x=y', '/me?tab=1&x=y'],
    ['/a/b/#frag', '/a/b/#frag'],
    ['/a/./b/../c', '/a/c'],
    ['/%2F%2Fevil.com', '/%2F%2Fevil.com'],
    ['/caf\u00e9', '/caf%C3%A9'],
  ])('keeps the same-origin path %j (as %j)', (value, expected) => {
    expect(safeRedirectTarget(value, FALLBACK)).toBe(expected);
  });

  it.each([
    '//evil.com',
    '///evil.com',
    '/\\evil.com',
    '/\\\\evil.com',
    '\\/evil.com',
    'https://app@evil.com',
    'https://evil.com',
    'https:/evil.com',
    'http:evil.com',
    'javascript:alert(1)',
    ' javascript:alert(1)',
    'vbscript:x',
    'data:text/html,x',
    '\t//evil.com',
    '/\t/evil.com',
    '/\r/evil.com',
    '/\n/evil.com',
    '/me\r\nSet-Cookie: a=b',
    '/me\u0000',
    '/me\u007f',
    '/me evil',
    '/me\u00a0',
    '/.//evil.com',
    '/./\\evil.com',
    '/a/..//evil.com',
    '/..//evil.com',
    '/%2e//evil.com',
    '/%2e%2e//evil.com',
    '/a/%2e%2e//evil.com',
    'evil.com',
    '.',
    '',
    `/${'a'.repeat(2048)}`,
  ])('refuses %j', (value) => {
    expect(safeRedirectTarget(value, FALLBACK)).toBe(FALLBACK);
  });

  it('refuses values that are not strings', () => {
    for (const value of [undefined, null, 42, ['/me'], { toString: () => '/me' }]) {
      expect(safeRedirectTarget(value, FALLBACK)).toBe(FALLBACK);
    }
  });

  it('whatever the input, the result is a same-origin path or the fallback', () => {
    const base = 'https://app.example';
    const pieces = fc.constantFrom(
      '/',
      '\\',
      '.',
      '..',
      '%2e',
      '%2f',
      '%5c',
      ':',
      '@',
      '?',
      '#',
      '\t',
      '\n',
      ' ',
      'evil.com',
      'a',
      '//',
      '%00',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(pieces, { maxLength: 12 }).map((p) => p.join('')),
        ),
        (value) => {
          const result = safeRedirectTarget(value, FALLBACK);
          if (result === FALLBACK) return;
          expect(result.startsWith('/')).toBe(true);
          expect(result.startsWith('//')).toBe(false);
          // eslint-disable-next-line no-control-regex -- control characters are what is checked
          expect(/[\\\s\u0000-\u001f\u007f]/u.test(result)).toBe(false);
          expect(new URL(result, base).origin).toBe(base);
          // A browser resolving it again stays here too.
          expect(new URL(new URL(result, base).href).origin).toBe(base);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe("requestMatcher's loginUrl with a target parameter", () => {
  const html = { accept: 'text/html' };

  function denied(loginUrl: string, url: string, method = 'GET') {
    const authorizer = AuthorizationManager.requestMatcher()
      .loginUrl(loginUrl, { targetParameter: 'continue' })
      .anyRequest(new Access().authenticated());
    const req = request({ method, url, headers: html });
    const decision = authorizer.authorize(null, req);
    if (decision instanceof Promise || decision.granted) throw new Error('expected a denial');
    return authorizer.onDenied(decision, req);
  }

  it('redirects a browser to the login page with the requested path and query', () => {
    expect(denied('/login', '/me')).toMatchObject({
      status: 302,
      headers: { location: '/login?continue=%2Fme' },
    });
    expect(denied('/login', '/me?tab=1&x=%2F').headers['location']).toBe(
      '/login?continue=%2Fme%3Ftab%3D1%26x%3D%252F',
    );
    expect(denied('/login?lang=en', '/me').headers['location']).toBe(
      '/login?lang=en&continue=%2Fme',
    );
  });

  it('the saved target survives the round trip through safeRedirectTarget', () => {
    const location = denied('/login', '/me?tab=1').headers['location'] ?? '';
    const saved = new URL(location, 'https://app.example').searchParams.get('continue');
    expect(safeRedirectTarget(saved, '/')).toBe('/me?tab=1');
  });

  it('only GET navigations carry the target', () => {
    expect(denied('/login', '/me', 'POST').headers['location']).toBe('/login');
  });
});
