import { describe, expect, it } from 'vitest';
import { createSecurityRequest } from '../../src/index.js';

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
