/**
 * `npx portcullis explain` against the example: for every route and every demo user,
 * the command's decision is the running server's (the same status for a refusal, the
 * login redirect's target, the firewall's 400; "granted" exactly when the server
 * passes the request to its application), and the command runs as a binary.
 */
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import exampleConfig from '../../examples/security.js';
import { explainRequest, main } from '../../src/cli/explain.js';
import { startExample } from '../support/example-server.js';
import { basic, type TestServer } from '../support/server.js';

type Who = 'anonymous' | 'user' | 'writer' | 'admin' | 'guest';
const WHO: readonly Who[] = ['anonymous', 'user', 'writer', 'admin', 'guest'];

/** Requests whose application answers never use 400, 401, 403 or 302 themselves. */
const REQUESTS: readonly [method: string, path: string, headers?: Record<string, string>][] = [
  ['GET', '/'],
  ['GET', '/health'],
  ['GET', '/profile'],
  ['GET', '/posts'],
  ['HEAD', '/posts'],
  ['POST', '/posts'],
  ['DELETE', '/posts'],
  ['GET', '/admin'],
  ['GET', '/admin/dashboard'],
  ['POST', '/admin/users'],
  ['GET', '/admin/users'],
  ['GET', '/api/data'],
  ['GET', '/api/profile'],
  ['GET', '/me'],
  ['GET', '/nowhere'],
  ['GET', '/%61dmin'],
  ['GET', '/ADMIN/dashboard'],
  ['GET', '/posts/../admin'],
  ['GET', '/admin%2fdashboard'],
  ['GET', '/profile', { accept: 'text/html' }],
  ['GET', '/admin/dashboard', { accept: 'text/html,application/xhtml+xml' }],
];

const DENIALS = new Set([302, 400, 401, 403]);

/** The status and Location of a request sent as written (fetch would normalize `..`). */
function send(
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; location: string | undefined }> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: Number(port), method, path, headers, timeout: 10_000 },
      (res) => {
        res.resume();
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, location: res.headers.location });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

describe('portcullis explain agrees with the running example', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startExample();
  });
  afterAll(() => server.close());

  for (const [method, path, headers = {}] of REQUESTS) {
    const label = `${method} ${path}${headers['accept'] ? ` (accept: ${headers['accept']})` : ''}`;
    it(label, async () => {
      for (const who of WHO) {
        const response = await send(server.origin, method, path, {
          ...headers,
          ...(who === 'anonymous' ? {} : { authorization: basic(who, `${who}-password`) }),
        });
        const explained = await explainRequest(exampleConfig(), {
          method,
          path,
          as: who === 'anonymous' ? undefined : who,
          headers: Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        });
        const context = `${label} as ${who}: server ${response.status}, explain ${JSON.stringify(explained)}`;
        if (DENIALS.has(response.status)) {
          expect(explained.status, context).toBe(response.status);
          expect(explained.outcome, context).not.toBe('granted');
          if (response.status === 302) {
            expect(explained.location, context).toBe(response.location);
          }
        } else {
          expect(explained.outcome, context).toBe('granted');
          expect(explained.status, context).toBeNull();
        }
      }
    });
  }
});

describe('portcullis explain', () => {
  const config = join(import.meta.dirname, '../../examples/security.ts');
  async function cli(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const status = await main(argv, {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
    });
    return { status, out: out.join('\n'), err: err.join('\n') };
  }

  it('prints the rule, the decision and the failing term; exit 1 for a refusal', async () => {
    const result = await cli('POST', '/admin/users', '--config', config, '--as', 'writer');
    expect(result.status).toBe(1);
    expect(result.out).toBe(
      [
        'POST /admin/users as writer',
        '  user:        roles USER; authorities posts:read, posts:write',
        "  rule:        /admin/users [POST] → hasAnyRole('ADMIN') and hasAnyAuthority('users:write')",
        '  decision:    403 forbidden',
        "  failing:     hasAnyRole('ADMIN')",
      ].join('\n'),
    );
  });

  it('says what granted; exit 0', async () => {
    const result = await cli('GET', '/admin/dashboard', '--config', config, '--as', 'admin');
    expect(result.status).toBe(0);
    expect(result.out).toContain('decision:    granted');
    expect(result.out).toContain("granted by:  hasAnyRole('ADMIN')");
  });

  it('explains the login redirect of a browser navigation, and deny by default', async () => {
    const html = await cli('GET', '/nowhere', '--config', config, '--header', 'Accept: text/html');
    expect(html.status).toBe(1);
    expect(html.out).toContain('rule:        anyRequest (default) → isAuthenticated()');
    expect(html.out).toContain('decision:    302 unauthenticated to /login?continue=%2Fnowhere');
  });

  it('explains the firewall', async () => {
    const result = await cli('GET', '/posts/../admin', '--config', config, '--json');
    expect(result.status).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({
      outcome: 'rejected',
      status: 400,
      rule: null,
    });
  });

  it('refuses bad input with exit 2 and a clear message', async () => {
    const cases: [string[], RegExp][] = [
      [['GET', '/'], /Usage: portcullis explain/u],
      [['GET', '/', '--config', config, '--as', 'nobody'], /--as nobody: no such user/u],
      [['GET', 'admin', '--config', config], /is not a path/u],
      [['G ET', '/', '--config', config], /is not an HTTP method/u],
      [['GET', '/', '--config', config, '--header', 'no colon'], /expected "name: value"/u],
      [['GET', '/', '--config', join(import.meta.dirname, 'missing.ts')], /Cannot load --config/u],
      [['GET', '/', '--config', config, '--bogus'], /Unknown option '--bogus'/u],
    ];
    for (const [argv, message] of cases) {
      const result = await cli(...argv);
      expect(result.status, argv.join(' ')).toBe(2);
      expect(result.err, argv.join(' ')).toMatch(message);
    }
  });

  it('refuses a configuration without an authorizer that explains', async () => {
    const { writeFile, mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'portcullis-explain-'));
    try {
      const none = join(dir, 'none.mjs');
      await writeFile(none, 'export default { users: [] };\n');
      const opaque = join(dir, 'opaque.mjs');
      await writeFile(
        opaque,
        'export const config = { authorizer: { authorize: () => ({ granted: true }) } };\n',
      );
      expect((await cli('GET', '/', '--config', none)).err).toMatch(/has no authorizer/u);
      const result = await cli('GET', '/', '--config', opaque);
      expect(result.status).toBe(2);
      expect(result.err).toMatch(/cannot explain its decisions/u);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs as the portcullis command, loading a TypeScript configuration', async () => {
    const bin = join(import.meta.dirname, '../../src/cli/bin.ts');
    const run = promisify(execFile);
    const granted = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        bin,
        'explain',
        'GET',
        '/posts',
        '--config',
        config,
        '--as',
        'user',
        '--json',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(JSON.parse(granted.stdout)).toMatchObject({
      outcome: 'granted',
      rule: "/posts [GET, HEAD] → hasAnyRole('USER') and hasAnyAuthority('posts:read')",
      user: { username: 'user', roles: ['USER'], authorities: ['posts:read'] },
    });
    const refused = await run(
      process.execPath,
      ['--import', 'tsx', bin, 'explain', 'GET', '/posts', '--config', config, '--as', 'guest'],
      { encoding: 'utf8', timeout: 60_000 },
    ).then(
      () => undefined,
      (error: unknown) => error as { code: number; stdout: string },
    );
    expect(refused?.code).toBe(1);
    expect(refused?.stdout).toContain("failing:     hasAnyRole('USER')");
  });
});
