import express from 'express';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Access, AuthorizationManager } from '../../src/authorization/index.js';
import { isProvablyLinear } from '../../src/authorization/linear-regex.js';
import { security } from '../../src/node/index.js';
import { thrown } from '../authorization/helpers.js';
import { createTestTransform, respond } from '../support/fixture.js';
import { sendRaw } from '../support/raw-http.js';
import { basic, listen, type TestServer } from '../support/server.js';

/** Attacks on the secure-by-default code of issue 15, each once a hole. */

describe('the quick linear proof and v-mode string classes', () => {
  it('the attack: [\\q{a|aa}]+ (an alternation of different lengths in one class) is not proven linear', () => {
    // A v-mode class of strings is a loop over (?:aa|a): exponential backtracking, as
    // (a|aa)+ is. The proof counted it as one character class.
    const regex = new RegExp('^(?:/x[\\q{a|aa}]+)$', 'siv');
    const at = (n: number) => {
      const start = performance.now();
      regex.test(`/x${'a'.repeat(n)}!`);
      return performance.now() - start;
    };
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
    const at = (n: number) => {
      const start = performance.now();
      regex.test(`/x${family.repeat(n)}!`);
      return performance.now() - start;
    };
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

  it('one credential still authenticates (the control)', async () => {
    const response = await sendRaw(server.origin, 'GET /admin HTTP/1.1', [
      ['Host', new URL(server.origin).host],
      ['Authorization', basic('admin', 'admin-pw')],
    ]);
    expect(response.status).toBe(200);
    expect(response.body).toContain('hello admin');
  });
});
