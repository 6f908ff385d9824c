import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  CorsConfiguration,
  createSecurityRequest,
  isPreflightRequest,
  type CorsOptions,
  type SecurityRequest,
} from '../../src/index.js';

function request(method: string, headers: Record<string, string | string[]>): SecurityRequest {
  const lines = new Map(
    Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value : [value]]),
  );
  return createSecurityRequest({
    method,
    url: '/api',
    header: (name) => lines.get(name)?.join(', '),
    headerValues: (name) => lines.get(name) ?? [],
  });
}

const preflight = (origin: string, method = 'GET', requested?: string) =>
  request('OPTIONS', {
    origin,
    'access-control-request-method': method,
    ...(requested === undefined ? {} : { 'access-control-request-headers': requested }),
  });

function thrown(options: unknown): ConfigurationError {
  try {
    new CorsConfiguration(options as CorsOptions);
  } catch (error) {
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
}

describe('isPreflightRequest', () => {
  it('is OPTIONS with Origin and Access-Control-Request-Method', () => {
    expect(isPreflightRequest(preflight('https://a.example'))).toBe(true);
    expect(isPreflightRequest(request('OPTIONS', { origin: 'https://a.example' }))).toBe(false);
    expect(
      isPreflightRequest(
        request('GET', { origin: 'https://a.example', 'access-control-request-method': 'GET' }),
      ),
    ).toBe(false);
  });
});

describe('CorsConfiguration origins', () => {
  const allowed = (options: CorsOptions, origin: string) =>
    new CorsConfiguration(options).preflight(preflight(origin)).status === 204;

  it('matches exact origins case-insensitively, and nothing longer or shorter', () => {
    const options = { allowedOrigins: ['https://app.example.com'] };
    expect(allowed(options, 'https://app.example.com')).toBe(true);
    expect(allowed(options, 'HTTPS://APP.EXAMPLE.COM')).toBe(true);
    for (const origin of [
      'https://app.example.com.evil.example',
      'https://evil-app.example.com',
      'https://app.example.co',
      'http://app.example.com',
      'https://app.example.com:8443',
      'https://app.example.com/',
      'https://user@app.example.com',
      'null',
      '',
    ]) {
      expect(allowed(options, origin), origin).toBe(false);
    }
  });

  it('anchors *.host patterns: subdomains at any depth, never the parent or a look-alike', () => {
    const options = { allowedOrigins: ['https://*.example.com', 'http://localhost:*'] };
    expect(allowed(options, 'https://a.example.com')).toBe(true);
    expect(allowed(options, 'https://a.b.example.com')).toBe(true);
    expect(allowed(options, 'http://localhost:5173')).toBe(true);
    expect(allowed(options, 'http://localhost')).toBe(true);
    for (const origin of [
      'https://example.com',
      'https://evilexample.com',
      'https://a.example.com.evil.example',
      'https://a.example.com:8443',
      'http://a.example.com',
      'https://a_b.example.com',
      'https://a.example.com@evil.example',
      'http://localhost.evil.example:80',
      'http://localhost:80x',
    ]) {
      expect(allowed(options, origin), origin).toBe(false);
    }
  });

  it('answers * for any origin without credentials, and takes a predicate', () => {
    const any = new CorsConfiguration({ allowedOrigins: ['*'] });
    const response = any.preflight(preflight('https://whoever.example'));
    expect(response.headers['access-control-allow-origin']).toBe('*');
    const predicate = new CorsConfiguration({
      allowedOrigins: (origin) => origin.endsWith('.internal.example'),
    });
    expect(predicate.preflight(preflight('https://x.internal.example')).status).toBe(204);
    expect(predicate.preflight(preflight('https://x.example')).status).toBe(403);
    const throwing = new CorsConfiguration({
      allowedOrigins: () => {
        throw new Error('boom');
      },
    });
    expect(throwing.preflight(preflight('https://x.example')).status).toBe(403);
  });

  it('refuses an Origin header sent twice', () => {
    const cors = new CorsConfiguration({ allowedOrigins: ['https://a.example'] });
    const twice = request('GET', { origin: ['https://a.example', 'https://a.example'] });
    expect(cors.responseHeaders(twice)['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CorsConfiguration preflight answers', () => {
  const cors = new CorsConfiguration({
    allowedOrigins: ['https://a.example'],
    allowedMethods: ['GET', 'PUT'],
    allowedHeaders: ['Authorization', 'Content-Type'],
  });

  it('204 with the allowed methods, the requested headers and the max age', () => {
    const response = cors.preflight(preflight('https://a.example', 'PUT', 'content-type'));
    expect(response).toEqual({
      status: 204,
      headers: {
        vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
        'access-control-allow-origin': 'https://a.example',
        'access-control-allow-methods': 'GET, PUT',
        'access-control-allow-headers': 'content-type',
        'access-control-max-age': '1800',
      },
      body: '',
    });
  });

  it('403 without CORS headers for a method or header not allowed, or a malformed list', () => {
    for (const [method, requested] of [
      ['DELETE', undefined],
      ['put', undefined],
      ['PUT', 'x-other'],
      ['PUT', 'authorization, x-other'],
      ['PUT', 'bad header'],
      ['PU T', undefined],
    ] as const) {
      const response = cors.preflight(preflight('https://a.example', method, requested));
      expect(response.status, `${method} ${requested}`).toBe(403);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('echoes the method and headers asked for when any is allowed', () => {
    const open = new CorsConfiguration({
      allowedOrigins: ['https://a.example'],
      allowedMethods: ['*'],
      allowCredentials: true,
    });
    const response = open.preflight(preflight('https://a.example', 'PATCH', 'X-A, x-b'));
    expect(response.headers['access-control-allow-methods']).toBe('PATCH');
    expect(response.headers['access-control-allow-headers']).toBe('x-a, x-b');
    expect(response.headers['access-control-allow-credentials']).toBe('true');
  });
});

describe('CorsConfiguration options', () => {
  it.each<[unknown, string]>([
    [{ allowedOrigins: ['*'], allowCredentials: true }, 'allowedOrigins'],
    [
      { allowedOrigins: ['https://a.example'], exposedHeaders: ['*'], allowCredentials: true },
      'exposedHeaders',
    ],
    [{ allowedOrigins: ['https://a.example/'] }, 'allowedOrigins'],
    [{ allowedOrigins: ['https://A.example'] }, 'allowedOrigins'],
    [{ allowedOrigins: ['https://a.example:443'] }, 'allowedOrigins'],
    [{ allowedOrigins: ['a.example'] }, 'allowedOrigins'],
    [{ allowedOrigins: ['null'] }, 'allowedOrigins'],
    [{ allowedOrigins: [] }, 'allowedOrigins'],
    [{ allowedOrigins: 'https://a.example' }, 'allowedOrigins'],
    [{ allowedOrigins: ['https://a.*.example'] }, 'allowedOrigins'],
    [{ allowedOrigins: ['https://*example.com'] }, 'allowedOrigins'],
    [{ allowedOrigins: ['*://a.example'] }, 'allowedOrigins'],
    [{ allowedOrigins: ['https://*.example.com/'] }, 'allowedOrigins'],
    [{ allowedOrigins: ['https://a.example'], allowedMethods: ['GET POST'] }, 'allowedMethods'],
    [{ allowedOrigins: ['https://a.example'], maxAge: -1 }, 'maxAge'],
    [{ allowedOrigins: ['https://a.example'], allowCredentials: 'yes' }, 'allowCredentials'],
    [{ allowedOrigin: ['https://a.example'] }, 'allowedOrigin'],
    [null, 'cors'],
  ])('refuses %j at start-up', (options, option) => {
    const error = thrown(options);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.option).toBe(option);
  });

  it('says how browsers spell an origin', () => {
    expect(thrown({ allowedOrigins: ['https://a.example/'] }).message).toContain(
      'did you mean "https://a.example"',
    );
  });

  it('never mutates the caller’s options', () => {
    const options = Object.freeze({
      allowedOrigins: Object.freeze(['https://a.example']),
      allowedMethods: Object.freeze(['get']),
    });
    const cors = new CorsConfiguration(options);
    expect(cors.preflight(preflight('https://a.example', 'GET')).status).toBe(204);
    expect(options.allowedMethods).toEqual(['get']);
  });
});
