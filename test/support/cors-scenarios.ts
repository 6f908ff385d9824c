import { expect, it } from 'vitest';
import { CorsConfiguration } from '../../src/index.js';
import { basic } from './server.js';

/** An answer as the scenarios read it. */
export interface CorsAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** Sends a request to the server under test (real HTTP, or a Fetch Request into the handler). */
export type CorsSend = (
  method: string,
  path: string,
  headers: Record<string, string>,
) => Promise<CorsAnswer>;

export const APP = 'https://app.example.com';

/** The CORS configuration every adapter test mounts (with the fixture's transform). */
export const cors = new CorsConfiguration({
  allowedOrigins: [APP, 'https://*.preview.example.com'],
  allowedMethods: ['GET', 'POST', 'PUT', 'DELETE'],
  allowedHeaders: ['authorization', 'content-type'],
  exposedHeaders: ['x-request-id'],
  allowCredentials: true,
  maxAge: 600,
});

/**
 * The CORS scenarios: a preflight to a protected route answered before
 * authentication (never 401), a refused one without CORS headers, and actual
 * responses (the handler's and portcullis' own 401 and 403) carrying the headers.
 */
export function runCorsScenarios(send: () => CorsSend): void {
  const preflight = (origin: string, method = 'PUT', requested = 'authorization, content-type') =>
    send()('OPTIONS', '/admin', {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': requested,
    });

  it('answers a preflight to a protected route with 204 and the CORS headers, not 401', async () => {
    const response = await preflight(APP);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, DELETE');
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'authorization, content-type',
    );
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect(response.headers.get('vary')).toContain('Origin');
    expect(response.headers.get('www-authenticate')).toBeNull();
  });

  it('answers a preflight from a subdomain the pattern allows', async () => {
    const response = await preflight('https://pr-42.preview.example.com');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(
      'https://pr-42.preview.example.com',
    );
  });

  it.each([
    ['an origin not listed', 'https://evil.example', 'PUT', 'authorization'],
    ['an origin that only ends like the pattern', 'https://evilpreview.example.com', 'PUT', ''],
    ['the pattern’s parent', 'https://preview.example.com', 'PUT', ''],
    ['another scheme', 'http://app.example.com', 'PUT', ''],
    ['a method not allowed', APP, 'PATCH', ''],
    ['a header not allowed', APP, 'PUT', 'authorization, x-secret'],
    ['the opaque origin', 'null', 'GET', ''],
  ])(
    'refuses a preflight with %s: 403 without CORS headers',
    async (_, origin, method, requested) => {
      const response = await preflight(origin, method, requested);
      expect(response.status).toBe(403);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('access-control-allow-methods')).toBeNull();
    },
  );

  it('adds the CORS headers to the handler’s response for an allowed origin', async () => {
    const response = await send()('GET', '/profile', {
      origin: APP,
      authorization: basic('user', 'user-pw'),
    });
    expect(response.status).toBe(200);
    expect(response.body).toBe('hello user');
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-expose-headers')).toBe('x-request-id');
    expect(response.headers.get('vary')).toContain('Origin');
  });

  it('adds them to portcullis’ own 401 and 403, so the script can read the denial', async () => {
    const anonymous = await send()('GET', '/admin', { origin: APP });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('access-control-allow-origin')).toBe(APP);
    const forbidden = await send()('GET', '/admin', {
      origin: APP,
      authorization: basic('user', 'user-pw'),
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('adds only Vary: Origin for another origin or none', async () => {
    const other = await send()('GET', '/profile', {
      origin: 'https://evil.example',
      authorization: basic('user', 'user-pw'),
    });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('vary')).toContain('Origin');
    const none = await send()('GET', '/profile', { authorization: basic('user', 'user-pw') });
    expect(none.headers.get('access-control-allow-origin')).toBeNull();
  });
}

/** Reads a fetch() Response as a {@link CorsAnswer}. */
export async function answer(response: Response): Promise<CorsAnswer> {
  return { status: response.status, headers: response.headers, body: await response.text() };
}
