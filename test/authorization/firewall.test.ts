import { describe, expect, it } from 'vitest';
import {
  Firewall,
  type FirewallOptions,
  type FirewallRejectionReason,
} from '../../src/authorization/index.js';
import { ConfigurationError } from '../../src/core/index.js';
import { request, thrown } from './helpers.js';

const strict = new Firewall();

function reason(url: string, options?: FirewallOptions, method = 'GET') {
  return new Firewall(options).check(request(url, { method }));
}

describe('Firewall.check', () => {
  it.each([
    '/',
    '/admin',
    '/admin/',
    '/%61dmin',
    '/a/b.c/..d/.e/...',
    "/a-b_c~d!$&'()*+,=:@",
    '/caf%C3%A9/%E2%82%AC',
    '/é/😀',
    '/search?q=../../x;y%2F%00',
    'http://evil.example/admin',
    'http://evil.example',
  ])('lets a normal path through: %s', (url) => {
    expect(strict.check(request(url))).toBeNull();
  });

  it.each<[string, FirewallRejectionReason]>([
    ['/admin%2Fx', 'encoded-slash'],
    ['/admin%2fx', 'encoded-slash'],
    ['/admin%5Cx', 'backslash'],
    ['/admin%5cx', 'backslash'],
    ['/admin\\x', 'backslash'],
    ['/admin;jsessionid=1', 'semicolon'],
    ['/admin%3Bx', 'semicolon'],
    ['/admin%3bx', 'semicolon'],
    ['/admin%00', 'null-character'],
    ['/admin\u0000', 'null-character'],
    ['/admin/%0a', 'line-break'],
    ['/admin/%0D', 'line-break'],
    ['/admin/\n', 'line-break'],
    ['/admin/\r', 'line-break'],
    ['/admin/%09', 'control-character'],
    ['/admin/\t', 'control-character'],
    ['/admin/%7F', 'control-character'],
    ['/admin/\u007f', 'control-character'],
    ['/admin/%C2%85', 'control-character'],
    ['/admin/\u0085', 'control-character'],
    ['/admin/%E2%80%A8', 'control-character'],
    ['/admin/\u2029', 'control-character'],
    ['//admin', 'double-slash'],
    ['/admin//x', 'double-slash'],
    ['/./admin', 'dot-segment'],
    ['/admin/..', 'dot-segment'],
    ['/public/../admin', 'dot-segment'],
    ['/admin/.', 'dot-segment'],
    ['/admin/%2e%2e/', 'encoded-period'],
    ['/admin/.%2E/', 'encoded-period'],
    ['/admin/%2e', 'encoded-period'],
    ['/file%2ejson', 'encoded-period'],
    ['/admin/%252e%252e/', 'encoded-percent'],
    ['/admin/%25', 'encoded-percent'],
    ['/admin/%zz', 'malformed-encoding'],
    ['/admin/%e9', 'malformed-encoding'],
    ['/admin/%c0%ae%c0%ae/', 'malformed-encoding'],
    ['/admin/%', 'malformed-encoding'],
    ['/admin/%4', 'malformed-encoding'],
    ['admin', 'path-not-absolute'],
    ['*', 'path-not-absolute'],
    ['', 'path-not-absolute'],
    ['/admin#x', 'fragment'],
    ['/public?x#/admin', 'fragment'],
    ['http://evil\\admin', 'backslash'],
  ])('rejects %j as %s', (url, expected) => {
    expect(strict.check(request(url))).toBe(expected);
  });

  it('reports the most severe finding first', () => {
    expect(reason('//a/%2e/%00')).toBe('null-character');
    expect(reason('//a/%2e/;')).toBe('semicolon');
    expect(reason('/admin%2f..')).toBe('encoded-slash');
  });

  it('rejects paths longer than maxPathLength (default 8192)', () => {
    expect(reason(`/${'a'.repeat(8191)}`)).toBeNull();
    expect(reason(`/${'a'.repeat(8192)}`)).toBe('path-too-long');
    expect(reason('/abcd', { maxPathLength: 4 })).toBe('path-too-long');
    expect(reason('/abc', { maxPathLength: 4 })).toBeNull();
  });

  it('rejects methods outside the allow-list', () => {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'get']) {
      expect(reason('/x', undefined, method)).toBeNull();
    }
    for (const method of ['TRACE', 'CONNECT', 'PROPFIND', 'FOO', 'G\u0130T']) {
      expect(reason('/x', undefined, method)).toBe('method-not-allowed');
    }
    const webdav = { allowedMethods: ['GET', 'propfind'] };
    expect(reason('/x', webdav, 'PROPFIND')).toBeNull();
    expect(reason('/x', webdav, 'POST')).toBe('method-not-allowed');
  });

  it.each<[keyof FirewallOptions, string]>([
    ['allowEncodedSlash', '/a%2Fb'],
    ['allowBackslash', '/a\\b'],
    ['allowBackslash', '/a%5Cb'],
    ['allowSemicolon', '/a;b'],
    ['allowSemicolon', '/a%3Bb'],
    ['allowUrlEncodedPercent', '/a%25b'],
    ['allowUrlEncodedPeriod', '/a%2Eb'],
    ['allowDoubleSlash', '/a//b'],
    ['allowDotSegments', '/a/../b'],
    ['dangerouslyAllowNull', '/a%00'],
    ['dangerouslyAllowCrLf', '/a%0D%0A'],
    ['dangerouslyAllowControlCharacters', '/a%09%7F%C2%85'],
  ])('%s lets %s through, and only that', (option, url) => {
    expect(reason(url)).not.toBeNull();
    expect(reason(url, { [option]: true })).toBeNull();
    expect(reason(`${url}//`, { [option]: true })).toBe(
      option === 'allowDoubleSlash' ? null : 'double-slash',
    );
  });

  it('still rejects encoded dot segments when only encoded periods are allowed', () => {
    const options = { allowUrlEncodedPeriod: true };
    expect(reason('/admin/%2e%2e/x', options)).toBe('dot-segment');
    expect(reason('/%2E/admin', options)).toBe('dot-segment');
    expect(reason('/a%2e%2eb', options)).toBeNull();
    expect(reason('/admin/..;x/y', { allowSemicolon: true })).toBe('dot-segment');
    expect(reason('/admin%2f..', { allowEncodedSlash: true })).toBe('dot-segment');
    expect(reason('/admin\\..\\x', { allowBackslash: true })).toBe('dot-segment');
  });

  it('is pure: it publishes nothing and keeps no state', () => {
    const req = request('/a;b');
    expect(strict.check(req)).toBe('semicolon');
    expect(strict.check(req)).toBe('semicolon');
    expect(Object.isFrozen(strict)).toBe(true);
  });
});

describe('Firewall.reject', () => {
  it('answers 400 without echoing the path', () => {
    const req = request('/<script>alert(1)</script>;x');
    const response = strict.reject('semicolon', req);
    expect(response.status).toBe(400);
    expect(response.body).toBe('Bad Request');
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    const json = strict.reject(
      'semicolon',
      request('/x;<b>', { headers: { accept: 'application/json' } }),
    );
    expect(JSON.parse(json.body)).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
    });
    expect(json.body).not.toContain('<b>');
    expect(
      new Firewall({ problemDetails: true }).reject('semicolon', req).headers['content-type'],
    ).toBe('application/problem+json');
  });
});

describe('Firewall options', () => {
  it('rejects unknown options with a did-you-mean hint', () => {
    for (const [name, hint] of [
      ['allowEncodedSlashes', 'allowEncodedSlash'],
      ['allowSemiColon', 'allowSemicolon'],
      ['allowNull', 'dangerouslyAllowNull'],
      ['maxPathLenght', 'maxPathLength'],
    ] as const) {
      const error = thrown(() => new Firewall({ [name]: true }));
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error.code).toBe('ERR_INVALID_OPTION');
      expect(error.option).toBe(name);
      expect(error.message).toContain(`"${hint}"`);
    }
    expect(
      thrown(() => new Firewall({ frobnicate: true } as FirewallOptions)).message,
    ).not.toContain('did you mean');
  });

  it('validates option values', () => {
    const cases: [FirewallOptions, string][] = [
      [{ allowSemicolon: 'yes' as never }, 'allowSemicolon'],
      [{ maxPathLength: 0 }, 'maxPathLength'],
      [{ maxPathLength: 1.5 }, 'maxPathLength'],
      [{ allowedMethods: [] }, 'allowedMethods'],
      [{ allowedMethods: ['GET POST'] }, 'allowedMethods'],
      [{ allowedMethods: 'GET' as never }, 'allowedMethods'],
      [{ problemDetails: 'auto' as never }, 'problemDetails'],
    ];
    for (const [options, option] of cases)
      expect(thrown(() => new Firewall(options)).option).toBe(option);
    expect(thrown(() => new Firewall(null as never)).code).toBe('ERR_INVALID_OPTION');
  });

  it('never mutates the caller’s options', () => {
    const options = Object.freeze({ allowSemicolon: true, allowedMethods: Object.freeze(['get']) });
    expect(new Firewall(options).check(request('/a;b'))).toBeNull();
    expect(options.allowedMethods).toEqual(['get']);
  });
});

describe('Firewall: characters case-insensitive rules fold to ASCII', () => {
  it.each(['/a%C5%BFsets/x', '/aſſets/x', '/%E2%84%AAey', '/\u212Aey'])(
    'rejects %s: the rules would fold it, the router would not',
    (url) => {
      expect(strict.check(request(url))).toBe('ambiguous-case-folding');
    },
  );

  it('lets them through with allowAmbiguousCaseFolding', () => {
    expect(reason('/a%C5%BFsets/x', { allowAmbiguousCaseFolding: true })).toBeNull();
  });
});
