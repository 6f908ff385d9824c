import { expect, it } from 'vitest';
import { USERS } from './fixture.js';
import { basic, rawRequest } from './server.js';

interface Case {
  readonly name: string;
  readonly method?: string;
  readonly target: string;
  readonly headers?: Record<string, string>;
  readonly status: number;
  readonly body?: string;
}

const as = (name: keyof typeof USERS | 'legacy', password = `${name}-pw`) => ({
  authorization: basic(name, password),
});

/** Requests every adapter must answer the same way. */
export const CASES: readonly Case[] = [
  { name: 'public root is open', target: '/', status: 200, body: 'hello anonymous' },
  {
    name: 'public root knows the user',
    target: '/',
    headers: as('user'),
    status: 200,
    body: 'hello user',
  },
  { name: 'protected route without credentials', target: '/profile', status: 401 },
  {
    name: 'protected route with the role',
    target: '/profile',
    headers: as('user'),
    status: 200,
    body: 'hello user',
  },
  { name: 'guest without roles', target: '/profile', headers: as('guest'), status: 403 },
  { name: 'wrong password', target: '/profile', headers: as('user', 'nope'), status: 401 },
  {
    name: 'unknown user',
    target: '/profile',
    headers: { authorization: basic('nobody', 'x') },
    status: 401,
  },
  {
    name: 'unknown password id is never compared as plain text',
    target: '/profile',
    headers: as('legacy', '{md5}legacy-pw'),
    status: 401,
  },
  {
    name: 'unknown password id with the raw password',
    target: '/profile',
    headers: as('legacy', 'legacy-pw'),
    status: 401,
  },
  { name: 'user is not admin', target: '/admin', headers: as('user'), status: 403 },
  {
    name: 'admin is admin',
    target: '/admin/dashboard',
    headers: as('admin'),
    status: 200,
    body: 'hello admin',
  },
  {
    name: 'GET /posts needs role and authority',
    target: '/posts',
    headers: as('user'),
    status: 200,
  },
  {
    name: 'POST /posts needs posts:write',
    method: 'POST',
    target: '/posts',
    headers: as('user'),
    status: 403,
  },
  {
    name: 'POST /posts by a writer',
    method: 'POST',
    target: '/posts',
    headers: as('writer'),
    status: 200,
  },
  // Path-normalization bypasses.
  { name: 'encoded newline', target: '/admin/%0a', headers: as('user'), status: 400 },
  { name: 'encoded letter is decoded before matching', target: '/%61dmin', status: 401 },
  {
    name: 'encoded letter with a user',
    target: '/%61dmin/dashboard',
    headers: as('user'),
    status: 403,
  },
  { name: 'double slash', target: '//admin', status: 400 },
  { name: 'semicolon dot-dot', target: '/admin/..;/', status: 400 },
  { name: 'dot-dot into admin', target: '/profile/../admin', status: 400 },
  { name: 'encoded dot-dot', target: '/x/%2e%2e/admin', status: 400 },
  { name: 'encoded slash', target: '/admin%2fdashboard', status: 400 },
  { name: 'encoded NUL', target: '/admin%00', status: 400 },
  { name: 'encoded percent', target: '/%2561dmin', status: 400 },
  { name: 'upper case path', target: '/ADMIN', status: 401 },
  {
    name: 'mixed case path with a user',
    target: '/Admin/Dashboard',
    headers: as('user'),
    status: 403,
  },
  { name: 'absolute-form target', target: 'http://evil.example/admin', status: 401 },
  // HTTP Basic abuse.
  {
    name: 'malformed base64',
    target: '/profile',
    headers: { authorization: 'Basic !!!' },
    status: 401,
  },
  {
    name: 'no colon',
    target: '/profile',
    headers: { authorization: `Basic ${Buffer.from('user').toString('base64')}` },
    status: 401,
  },
  {
    name: 'empty credentials',
    target: '/profile',
    headers: { authorization: 'Basic ' },
    status: 401,
  },
  {
    name: 'oversized header',
    target: '/profile',
    headers: { authorization: `Basic ${'A'.repeat(12_000)}` },
    status: 401,
  },
  {
    name: 'lower-case scheme works',
    target: '/profile',
    headers: { authorization: as('user').authorization.replace('Basic', 'basic') },
    status: 200,
  },
  // Entry points.
  {
    name: 'browser navigation is redirected to the login page',
    target: '/profile',
    headers: { accept: 'text/html,application/xhtml+xml' },
    status: 302,
  },
  {
    name: 'XHR is not redirected',
    target: '/profile',
    headers: { accept: 'text/html', 'x-requested-with': 'XMLHttpRequest' },
    status: 401,
  },
];

/** Registers one test per case against the server at `origin()`. */
export function runScenarios(origin: () => string, skip: ReadonlySet<string> = new Set()): void {
  for (const c of CASES) {
    if (skip.has(c.name)) continue;
    it(`${c.name}: ${c.method ?? 'GET'} ${c.target} → ${c.status}`, async () => {
      const response = await rawRequest(origin(), c.method ?? 'GET', c.target, c.headers);
      expect(response.status).toBe(c.status);
      if (c.body !== undefined) expect(response.body).toBe(c.body);
      if (c.status === 401) {
        expect(response.headers).toMatch(/\r\nWWW-Authenticate: Basic realm="Restricted"/iu);
      }
      if (c.status === 302) expect(response.headers).toMatch(/\r\nLocation: \/login\r\n/iu);
      if (c.status >= 400) {
        expect(response.body).not.toMatch(/admin|profile|hasRole|hasAnyRole/iu);
      }
    });
  }
}

/**
 * POSTs a JSON body that arrives after a pause, so the server's body parser finishes
 * in the socket's async context, not the one the request started in.
 */
export async function postLate(origin: string, path: string, authorization: string, body: string) {
  const { request } = await import('node:http');
  return new Promise<string>((resolve, reject) => {
    const req = request(`${origin}${path}`, {
      method: 'POST',
      headers: {
        authorization,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        resolve(text);
      });
    });
    req.on('error', reject);
    req.flushHeaders();
    setTimeout(() => req.end(body), 30);
  });
}

/** Concurrent requests of different users, each reading the SecurityContext after awaits. */
export function runContextScenario(origin: () => string, method = 'GET', body?: string): void {
  it(`SecurityContext keeps each request's user across awaits (${method})`, async () => {
    const names = Object.keys(USERS) as (keyof typeof USERS)[];
    const requests = Array.from({ length: 40 }, (_, i) => names[i % names.length]!);
    const results = await Promise.all(
      requests.map(async (name) => {
        if (body !== undefined) {
          return [name, await postLate(origin(), '/ctx', as(name).authorization, body)] as const;
        }
        const response = await fetch(`${origin()}/ctx`, { method, headers: as(name) });
        return [name, await response.text()] as const;
      }),
    );
    for (const [name, text] of results) expect(text).toBe(`ctx ${name}`);
  });
}
