import { describe, expect, it } from 'vitest';
import {
  Firewall,
  type FirewallOptions,
  type FirewallRejectionReason,
} from '../../src/authorization/index.js';
import {
  ConfigurationError,
  createSecurityRequest,
  type SecurityRequest,
} from '../../src/core/index.js';
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

/** A request whose headers have several field lines, as node adapters see them. */
function withLines(lines: [string, string][], url = '/'): SecurityRequest {
  const headers = new Map<string, string[]>();
  for (const [name, value] of lines) {
    const key = name.toLowerCase();
    headers.set(key, [...(headers.get(key) ?? []), value]);
  }
  return createSecurityRequest({
    method: 'GET',
    url,
    header: (name) => headers.get(name)?.join(', '),
    headerValues: (name) => headers.get(name) ?? [],
  });
}

const BASIC_USER = 'Basic dXNlcjp1c2VyLXB3';
const BASIC_ADMIN = 'Basic YWRtaW46YWRtaW4tcHc=';

describe('Firewall: headers trusted as single (duplicate-header)', () => {
  it.each<[string, [string, string][]]>([
    [
      'two Basic credentials',
      [
        ['Authorization', BASIC_USER],
        ['authorization', BASIC_ADMIN],
      ],
    ],
    [
      'Basic then Bearer',
      [
        ['Authorization', BASIC_USER],
        ['Authorization', 'Bearer x'],
      ],
    ],
    [
      'an empty line and a credential',
      [
        ['Authorization', ''],
        ['Authorization', BASIC_USER],
      ],
    ],
    [
      'two Hosts',
      [
        ['Host', 'a.example'],
        ['Host', 'b.example'],
      ],
    ],
    [
      'two Origins',
      [
        ['Origin', 'https://a.example'],
        ['Origin', 'https://b.example'],
      ],
    ],
    [
      'two Content-Types',
      [
        ['Content-Type', 'text/plain'],
        ['Content-Type', 'application/json'],
      ],
    ],
    [
      'two X-Requested-With',
      [
        ['X-Requested-With', 'XMLHttpRequest'],
        ['X-Requested-With', 'x'],
      ],
    ],
    [
      'two X-CSRF-Tokens',
      [
        ['X-CSRF-Token', 'a'],
        ['X-CSRF-Token', 'b'],
      ],
    ],
    [
      'two Sec-Fetch-Sites',
      [
        ['Sec-Fetch-Site', 'same-origin'],
        ['Sec-Fetch-Site', 'cross-site'],
      ],
    ],
  ])('rejects %s in separate lines', (_, lines) => {
    expect(strict.check(withLines(lines))).toBe('duplicate-header');
  });

  it.each([
    ['authorization', `${BASIC_USER}, ${BASIC_ADMIN}`],
    ['authorization', `${BASIC_USER},Bearer x`],
    ['authorization', 'Bearer a.b.c, Bearer d.e.f'],
    ['authorization', 'Basic abc,def'],
    ['host', 'a.example, b.example'],
    ['origin', 'https://a.example, https://b.example'],
    ['x-requested-with', 'XMLHttpRequest, XMLHttpRequest'],
    ['content-type', 'application/json, application/x-www-form-urlencoded'],
  ])('rejects a %s joined by a comma, as the Fetch API joins lines: %s', (name, value) => {
    expect(strict.check(request('/', { headers: { [name]: value } }))).toBe('duplicate-header');
  });

  it.each([
    ['authorization', BASIC_USER],
    ['authorization', 'Digest username="a,b", realm="r", nonce="n"'],
    ['authorization', 'Bearer abc, error="x"'],
    ['content-type', 'multipart/form-data; boundary="a,b"'],
    ['content-type', 'multipart/form-data; boundary=a,b'],
    ['accept', 'text/html, application/json'],
    ['x-forwarded-for', '1.2.3.4, 5.6.7.8'],
  ])('lets one %s through: %s', (name, value) => {
    expect(strict.check(request('/', { headers: { [name]: value } }))).toBeNull();
  });

  it('lets several Cookie lines and list headers through', () => {
    const req = withLines([
      ['Cookie', 'a=1'],
      ['Cookie', 'b=2'],
      ['Accept', 'text/html'],
      ['Accept', 'application/json'],
    ]);
    expect(strict.check(req)).toBeNull();
  });

  it('refuses more headers listed in singleValueHeaders', () => {
    const req = withLines([
      ['X-Api-Key', 'a'],
      ['X-Api-Key', 'b'],
    ]);
    expect(strict.check(req)).toBeNull();
    expect(new Firewall({ singleValueHeaders: ['X-Api-Key'] }).check(req)).toBe('duplicate-header');
    expect(thrown(() => new Firewall({ singleValueHeaders: ['cookie'] })).option).toBe(
      'singleValueHeaders',
    );
    expect(thrown(() => new Firewall({ singleValueHeaders: ['a b'] })).option).toBe(
      'singleValueHeaders',
    );
  });
});

describe('Firewall: Host (invalid-host, host-not-allowed)', () => {
  const host = (value: string, options?: FirewallOptions) =>
    new Firewall(options).check(request('/', { headers: { host: value } }));

  it.each([
    'localhost',
    'localhost:3000',
    'APP.Example.com',
    'app.example.com.',
    'a-b_c~d.example',
    '127.0.0.1',
    '127.0.0.1:65535',
    '[::1]',
    '[::1]:8080',
    '[2001:db8::7]:443',
    '[::ffff:127.0.0.1]',
    'xn--bcher-kva.example',
  ])('lets a valid host through: %s', (value) => {
    expect(host(value)).toBeNull();
  });

  it.each([
    'u:p@h\u00e9\u00ff',
    'user@app.example',
    '@app.example',
    'app.example:99999',
    'app.example:65536',
    'app.example:',
    'app.example:80:80',
    'app.example:8o',
    'app. example',
    'app.example\t',
    'caf\u00e9.example',
    'app%2eexample',
    'app/example',
    'app\\example',
    'app.example?x',
    'app.example#x',
    '',
    '[::1',
    '[::g]',
    '[fe80::1%25eth0]',
    '::1',
    '127.1',
    '0x7f.0.0.1',
    '010.0.0.1',
    '256.0.0.1',
    'xn--a.example',
    'a.xn--abc-.example',
    'xn--.example',
    'a'.repeat(256),
  ])('rejects an invalid host: %j', (value) => {
    expect(host(value)).toBe('invalid-host');
  });

  it('checks HTTP/2 :authority and the authority of an absolute-form target', () => {
    expect(strict.check(request('/', { headers: { ':authority': 'u@h' } }))).toBe('invalid-host');
    expect(strict.check(request('/', { headers: { ':authority': 'h:8443' } }))).toBeNull();
    expect(strict.check(request('http://u:p@app.example/x'))).toBe('invalid-host');
    expect(strict.check(request('http://app.example:70000/x'))).toBe('invalid-host');
    expect(strict.check(request('http://app.example:8080/x'))).toBeNull();
  });

  it('allows only the listed host names with allowedHostnames', () => {
    const options = { allowedHostnames: ['app.example', '[::1]'] };
    expect(host('app.example', options)).toBeNull();
    expect(host('APP.example:8080', options)).toBeNull();
    expect(host('[::1]:3000', options)).toBeNull();
    expect(host('evil.example', options)).toBe('host-not-allowed');
    expect(host('app.example.evil', options)).toBe('host-not-allowed');
    expect(host('u@app.example', options)).toBe('invalid-host');
    const firewall = new Firewall(options);
    expect(
      firewall.check(request('http://evil.example/', { headers: { host: 'app.example' } })),
    ).toBe('host-not-allowed');
    // HTTP/1.0 may omit Host: with an allow-list, naming no host is not allowed.
    expect(firewall.check(request('/'))).toBe('host-not-allowed');
    expect(strict.check(request('/'))).toBeNull();
  });

  it('takes a predicate for allowedHostnames; one that throws refuses', () => {
    const options = { allowedHostnames: (name: string) => name.endsWith('.example') };
    expect(host('a.example', options)).toBeNull();
    expect(host('A.EXAMPLE', options)).toBeNull();
    expect(host('example.org', options)).toBe('host-not-allowed');
    const throwing = {
      allowedHostnames: () => {
        throw new Error('boom');
      },
    };
    expect(host('a.example', throwing)).toBe('host-not-allowed');
  });

  it('validates allowedHostnames', () => {
    for (const bad of [['app.example:80'], ['u@app'], [''], 'app.example', [1]]) {
      expect(thrown(() => new Firewall({ allowedHostnames: bad as never })).option).toBe(
        'allowedHostnames',
      );
    }
  });
});
