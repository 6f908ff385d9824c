import { describe, expect, it } from 'vitest';
import { createSecurityRequest } from '../../src/index.js';
import { decodePath, normalizePath } from '../../src/core/request.js';
import { nodeRequestView, type NodeRequestLike } from '../../src/http/request-views.js';

const make = (url: string, headers: Record<string, string> = {}) =>
  createSecurityRequest({
    method: 'get',
    url,
    header: (name) => headers[name],
    clientAddress: '127.0.0.1',
  });

describe('createSecurityRequest', () => {
  it('splits the query off and decodes the path', () => {
    const request = make('/a%20b/%61dmin?x=1#frag');
    expect(request.method).toBe('GET');
    expect(request.rawPath).toBe('/a%20b/%61dmin');
    expect(request.path).toBe('/a b/admin');
    expect(request.url).toBe('/a%20b/%61dmin?x=1#frag');
    expect(request.secure).toBe(false);
    expect(request.clientAddress).toBe('127.0.0.1');
  });

  it('takes the path of an absolute-form target, as routers do', () => {
    expect(make('http://evil.example/admin/x?y').path).toBe('/admin/x');
    expect(make('HTTPS://h').path).toBe('/');
  });

  it('normalizes dot segments and repeated slashes', () => {
    expect(make('//admin').path).toBe('/admin');
    expect(make('/public/../admin/').path).toBe('/admin/');
    expect(make('/./admin/./x').path).toBe('/admin/x');
    expect(make('/a/%2e%2e/admin').path).toBe('/admin');
    expect(make('/a\\..\\admin').path).toBe('/admin');
    expect(make('/../../admin').path).toBe('/admin');
  });

  it('leaves malformed percent sequences without throwing', () => {
    expect(make('/a%zz/%e9/%41').path).toBe('/a%zz/%e9/A');
  });

  it('looks headers up case-insensitively and parses cookies, first one winning', () => {
    const request = make('/', { cookie: 'a=1; b="two"; a=evil; c=%41%42; bad; d=%zz' });
    expect(request.header('COOKIE')).toContain('a=1');
    expect(request.cookies.get('a')).toBe('1');
    expect(request.cookies.get('b')).toBe('two');
    expect(request.cookies.get('c')).toBe('AB');
    expect(request.cookies.get('d')).toBe('%zz');
    expect(request.cookies.has('bad')).toBe(false);
    expect(request.cookies.get('__proto__')).toBeUndefined();
  });
});

describe('normalizePath', () => {
  it.each([
    ['/admin', '/admin'],
    ['/admin/', '/admin/'],
    ['/a//b/', '/a/b/'],
    ['/a/./b', '/a/b'],
    ['/a/b/..', '/a/'],
    ['/a/b/.', '/a/b/'],
    ['/a/..', '/'],
    ['/..', '/'],
    ['a/b', '/a/b'],
    ['\\admin', '/admin'],
  ])('%s → %s', (path, normalized) => {
    expect(normalizePath(path)).toBe(normalized);
  });

  it('keeps the trailing slash of a backslash spelling (regression: /admin\\ became /admin)', () => {
    // A rule `^/admin/.*` matches `/admin/`; `/admin\` and `/admin/x\..` must not
    // normalize to `/admin`, which it does not match.
    expect(normalizePath('/admin\\')).toBe('/admin/');
    expect(normalizePath('/admin/x\\..')).toBe('/admin/');
    expect(normalizePath('/admin/.\\')).toBe('/admin/');
    expect(normalizePath('/admin/x\\..')).toBe(normalizePath('/admin/x/..'));
  });
});

describe('decodePath', () => {
  it('decodes valid percent-encoding as UTF-8', () => {
    expect(decodePath('/%61dmin')).toBe('/admin');
    expect(decodePath('/caf%C3%A9')).toBe('/café');
    expect(decodePath('/plain')).toBe('/plain');
  });

  it('decodes the valid sequences of a malformed run (regression: /%61%e9 stayed encoded)', () => {
    expect(decodePath('/%61%e9')).toBe('/a%e9');
    expect(decodePath('/%e9%61')).toBe('/%e9a');
    expect(decodePath('/%c3%a9%ff%41')).toBe('/é%ffA');
    expect(decodePath('/%f0%9f%98%80%80')).toBe('/😀%80');
    expect(decodePath('/%e2%82x')).toBe('/%e2%82x');
    expect(decodePath('/%c0%ae%2e')).toBe('/%c0%ae.');
    expect(decodePath('/%ed%a0%80%41')).toBe('/%ed%a0%80A');
    expect(decodePath('/%zz%41')).toBe('/%zzA');
  });
});

describe('extractRawPath: a backslash ends the authority', () => {
  it('never hides the path of http://host\\admin behind the host', () => {
    // WHATWG URL parsers read `\` as `/` here: the path is /admin, not /.
    expect(make('http://evil\\admin').rawPath).toBe('\\admin');
    expect(make('http://evil\\admin').path).toBe('/admin');
  });
});

describe('SecurityRequest.headerValues', () => {
  it('defaults to the header value as the only line', () => {
    const request = make('/', { authorization: 'Basic a, Basic b' });
    expect(request.headerValues('Authorization')).toEqual(['Basic a, Basic b']);
    expect(request.headerValues('x-missing')).toEqual([]);
  });

  it('reads every line when the adapter gives them, by case-insensitive name', () => {
    const lines: Record<string, string[]> = { authorization: ['Basic a', 'Basic b'] };
    const request = createSecurityRequest({
      method: 'GET',
      url: '/',
      header: (name) => lines[name]?.join(', '),
      headerValues: (name) => lines[name] ?? [],
    });
    expect(request.headerValues('AUTHORIZATION')).toEqual(['Basic a', 'Basic b']);
    expect(request.header('authorization')).toBe('Basic a, Basic b');
  });
});

describe('node request views read every line of a repeated header', () => {
  const socket = { remoteAddress: '127.0.0.1' };

  it('uses headersDistinct where node keeps only the first Authorization', () => {
    const view = nodeRequestView({
      method: 'GET',
      url: '/',
      socket,
      headers: { authorization: 'Basic a', cookie: 'a=1; b=2' },
      headersDistinct: { authorization: ['Basic a', 'Basic b'], cookie: ['a=1', 'b=2'] },
    } as unknown as NodeRequestLike);
    expect(view.header('authorization')).toBe('Basic a, Basic b');
    expect(view.headerValues('Authorization')).toEqual(['Basic a', 'Basic b']);
    expect(view.header('cookie')).toBe('a=1; b=2');
    expect(view.headerValues('x-none')).toEqual([]);
  });

  it('falls back to headers for request objects without headersDistinct', () => {
    const view = nodeRequestView({
      method: 'GET',
      url: '/',
      socket,
      headers: { 'x-list': ['a', 'b'], host: 'h' },
    } as unknown as NodeRequestLike);
    expect(view.headerValues('x-list')).toEqual(['a', 'b']);
    expect(view.header('x-list')).toBe('a, b');
    expect(view.headerValues('host')).toEqual(['h']);
  });
});
