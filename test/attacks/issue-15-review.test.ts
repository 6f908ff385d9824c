import express from 'express';
import { createServer } from 'node:http';
import { createServer as createHttp2Server, type Http2Server } from 'node:http2';
import { connect as connectTcp, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Access, AuthorizationManager } from '../../src/authorization/index.js';
import { isProvablyLinear } from '../../src/authorization/linear-regex.js';
import type { SecurityEvent } from '../../src/index.js';
import { withSecurity, security } from '../../src/node/index.js';
import { request, thrown, user } from '../authorization/helpers.js';
import { authorizeSync } from '../authorization/sync.js';
import { createTestTransform, respond } from '../support/fixture.js';
import { sendRaw } from '../support/raw-http.js';
import { basic, listen, type TestServer } from '../support/server.js';

/** Attacks on the secure-by-default code of issue 15, each once a hole. */

/** The fastest of three runs of `fn`, in milliseconds (a pause of the machine hits one run). */
function fastest(fn: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    fn();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

describe('the quick linear proof and v-mode string classes', () => {
  it('the attack: [\\q{a|aa}]+ (an alternation of different lengths in one class) is not proven linear', () => {
    // A v-mode class of strings is a loop over (?:aa|a): exponential backtracking, as
    // (a|aa)+ is. The proof counted it as one character class.
    const regex = new RegExp('^(?:/x[\\q{a|aa}]+)$', 'siv');
    const at = (n: number) => fastest(() => regex.test(`/x${'a'.repeat(n)}!`));
    at(18); // warm-up
    expect(at(28)).toBeGreaterThan(Math.max(at(16), 0.05) * 8);
    expect(isProvablyLinear('/x[\\q{a|aa}]+', 'siv')).toBe(false);
    expect(isProvablyLinear('/x[\\q{a|aa}]+b', 'siv')).toBe(false);
    const error = thrown(() =>
      AuthorizationManager.requestMatcher().addMatcher(
        new RegExp('/x[\\q{a|aa}]+', 'v'),
        Access.permitAll(),
      ),
    );
    expect(error.code).toBe('ERR_INVALID_OPTION');
    expect(error.option).toBe('pattern');
  });

  it('the attack: [\\p{RGI_Emoji}\\u200d]+ (a property of strings) is not proven linear', () => {
    // A family emoji is one string of RGI_Emoji or five code points (three emoji and
    // two joiners): each one doubles the ways to match, and 14 of them (756 bytes of
    // path) took a minute and a half. The proof counted the class as one character.
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F466}';
    const regex = new RegExp('^(?:/x[\\p{RGI_Emoji}\\u200d]+)$', 'siv');
    const at = (n: number) => fastest(() => regex.test(`/x${family.repeat(n)}!`));
    at(4); // warm-up
    expect(at(9)).toBeGreaterThan(Math.max(at(5), 0.05) * 4);
    for (const source of [
      '/x[\\p{RGI_Emoji}\\u200d]+',
      '/x\\p{RGI_Emoji}+',
      '/x/[\\p{Basic_Emoji}a]+',
    ]) {
      expect(isProvablyLinear(source, 'siv')).toBe(false);
    }
    const error = thrown(() =>
      AuthorizationManager.requestMatcher().addMatcher(
        new RegExp('/x[\\p{RGI_Emoji}\\u200d]+', 'v'),
        Access.permitAll(),
      ),
    );
    expect(error.code).toBe('ERR_INVALID_OPTION');
    expect(error.option).toBe('pattern');
  });

  it('a v-mode class without strings is still proven at once', () => {
    expect(isProvablyLinear('/x/\\p{L}+/.*', 'siv')).toBe(true);
    expect(isProvablyLinear('/x/[\\p{L}\\d]+/.*', 'siv')).toBe(true);
    expect(isProvablyLinear('/x/[a-z]+/.*', 'siv')).toBe(true);
    expect(isProvablyLinear('/x/[[a-z]--[q]]+/.*', 'siv')).toBe(true);
  });
});

describe('two Authorization lines behind a middleware that adds a header (Express)', () => {
  const { transform } = createTestTransform();
  let server: TestServer;
  beforeAll(async () => {
    const app = express();
    // A request-id middleware, as many apps have: it adds a header node never read.
    app.use((req, _res, next) => {
      req.headers['x-request-id'] ??= 'generated-id';
      next();
    });
    app.use(security(transform));
    app.use((req, res, next) => {
      respond(req.originalUrl).then((body) => res.send(body), next);
    });
    server = await listen(createServer(app));
  });
  afterAll(() => server.close());

  it('the attack: Basic admin + Basic user is refused with 400, not authenticated as admin', async () => {
    // One added key made the header names as many as the raw line pairs, so the view
    // took "no line repeats" and read node's first Authorization line only.
    const response = await sendRaw(server.origin, 'GET /admin HTTP/1.1', [
      ['Host', new URL(server.origin).host],
      ['Authorization', basic('admin', 'admin-pw')],
      ['Authorization', basic('user', 'user-pw')],
    ]);
    expect(response.body).not.toContain('hello admin');
    expect(response.status).toBe(400);
  });

  it.each([
    ['in two cases', 0],
    ['among twenty other header lines', 20],
  ])('the attack: Authorization + authorization %s is refused', async (_, filler) => {
    const response = await sendRaw(server.origin, 'GET /admin HTTP/1.1', [
      ['Host', new URL(server.origin).host],
      ...Array.from({ length: filler }, (__, i): [string, string] => [`X-Filler-${i}`, 'x']),
      ['Authorization', basic('admin', 'admin-pw')],
      ['authorization', basic('user', 'user-pw')],
    ]);
    expect(response.body).not.toContain('hello admin');
    expect(response.status).toBe(400);
  });

  it('one credential still authenticates (the control)', async () => {
    const response = await sendRaw(server.origin, 'GET /admin HTTP/1.1', [
      ['Host', new URL(server.origin).host],
      ['Authorization', basic('admin', 'admin-pw')],
    ]);
    expect(response.status).toBe(200);
    expect(response.body).toContain('hello admin');
  });
});

/**
 * Sends one HTTP/2 request (h2c, prior knowledge) with its header fields exactly as
 * given, repeated ones included (node's client refuses to repeat Authorization), and
 * resolves with the response body.
 */
function rawHttp2(port: number, fields: readonly [string, string][]): Promise<string> {
  const literal = (name: string, value: string) =>
    // HPACK literal field without indexing, new name, no Huffman (RFC 7541 §6.2.2).
    Buffer.concat([
      Buffer.from([0, name.length]),
      Buffer.from(name, 'latin1'),
      Buffer.from([value.length]),
      Buffer.from(value, 'latin1'),
    ]);
  const frame = (type: number, flags: number, stream: number, payload: Buffer) => {
    const head = Buffer.alloc(9);
    head.writeUIntBE(payload.length, 0, 3);
    head[3] = type;
    head[4] = flags;
    head.writeUInt32BE(stream, 5);
    return Buffer.concat([head, payload]);
  };
  const block = Buffer.concat(fields.map(([name, value]) => literal(name, value)));
  return new Promise((resolve, reject) => {
    const socket = connectTcp(port, '127.0.0.1', () => {
      socket.write(
        Buffer.concat([
          Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
          frame(4, 0, 0, Buffer.alloc(0)), // SETTINGS
          frame(1, 5, 1, block), // HEADERS, END_STREAM | END_HEADERS
        ]),
      );
    });
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
    let buffer = Buffer.alloc(0);
    let body = '';
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 9) {
        const length = buffer.readUIntBE(0, 3);
        if (buffer.length < 9 + length) break;
        const [type, flags] = [buffer[3] ?? 0, buffer[4] ?? 0];
        const payload = buffer.subarray(9, 9 + length);
        buffer = buffer.subarray(9 + length);
        if (type === 4 && (flags & 1) === 0) socket.write(frame(4, 1, 0, Buffer.alloc(0)));
        if (type === 0) body += payload.toString('utf8');
        const ended = (type === 0 || type === 1) && (flags & 1) !== 0;
        if (ended || type === 3 || type === 7) {
          socket.destroy();
          resolve(body);
          return;
        }
      }
    });
    socket.on('error', reject);
  });
}

describe('two Authorization fields over HTTP/2 (node compatibility API behind withSecurity)', () => {
  const { transform, events } = createTestTransform();
  let server: Http2Server;
  let port = 0;
  beforeAll(async () => {
    const handler = withSecurity(transform, async (req, res) => {
      res.end(await respond(req.url ?? '/'));
    });
    server = createHttp2Server(handler as unknown as Parameters<typeof createHttp2Server>[0]);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  );
  const fields = (...credentials: string[]): [string, string][] => [
    [':method', 'GET'],
    [':scheme', 'http'],
    [':path', '/admin'],
    [':authority', `127.0.0.1:${port}`],
    ...credentials.map((value): [string, string] => ['authorization', value]),
  ];

  it('the attack: Basic admin + Basic user is refused, not authenticated as admin', async () => {
    // node's HTTP/2 request keeps the first field and has no headersDistinct: the
    // view saw one Authorization and the firewall no duplicate.
    const seen: SecurityEvent[] = [];
    const stop = events.on('request-rejected', (event) => {
      seen.push(event);
    });
    const body = await rawHttp2(port, fields(basic('admin', 'admin-pw'), basic('user', 'user-pw')));
    stop();
    expect(body).not.toContain('hello admin');
    expect(seen).toContainEqual(
      expect.objectContaining({ type: 'request-rejected', reason: 'duplicate-header' }),
    );
  });

  it('one credential still authenticates (the control)', async () => {
    expect(await rawHttp2(port, fields(basic('admin', 'admin-pw')))).toBe('hello admin');
  });
});

describe('path-pattern constraints with regex escapes', () => {
  it('{id:\\d+} (Spring syntax) is accepted and matches digits only', () => {
    // It was refused: the whole pattern was checked for "\", constraints included.
    const authorizer = AuthorizationManager.requestMatcher()
      .requestMatchers('/users/{id:\\d+}', Access.permitAll())
      .requestMatchers('/files/{name:[\\w-]+}.{ext:pdf|txt}', Access.permitAll())
      .anyRequest(Access.denyAll());
    expect(authorizeSync(authorizer, null, request('/users/12')).granted).toBe(true);
    expect(authorizeSync(authorizer, user(), request('/users/alice')).granted).toBe(false);
    expect(authorizeSync(authorizer, null, request('/files/a-b.pdf')).granted).toBe(true);
    expect(authorizeSync(authorizer, null, request('/files/a.b.pdf')).granted).toBe(false);
    expect(authorizeSync(authorizer, null, request('/files/a.exe')).granted).toBe(false);
  });

  it('a "\\" outside a constraint, or a constraint that can backtrack, is still refused', () => {
    for (const pattern of ['/a\\b', '/a/\\{x}', '/u/{id:(?:\\d+)+!}']) {
      const error = thrown(() =>
        AuthorizationManager.requestMatcher().requestMatchers(pattern, Access.permitAll()),
      );
      expect(error.code, pattern).toBe('ERR_INVALID_OPTION');
      expect(error.option, pattern).toBe('pattern');
    }
  });
});
