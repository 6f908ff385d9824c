import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecurityContext } from '../../src/index.js';
import type { TestServer } from '../support/server.js';
import { appRouter, clientFor, demoContext, serveStandalone } from './fixture.js';

describe('SecurityContext during procedure calls', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await serveStandalone(appRouter, demoContext());
  });
  afterAll(() => server.close());

  const names = ['user', 'writer', 'admin', 'guest'] as const;

  it('holds each caller across awaits under concurrency (one request per call)', async () => {
    const calls = Array.from({ length: 40 }, (_, i) => {
      const name = names[i % names.length]!;
      return clientFor(server.origin, name, false)
        .ctx.query(i)
        .then((seen) => [name, seen]);
    });
    for (const [name, seen] of await Promise.all(calls)) expect(seen).toBe(name);
  });

  it('holds each caller across awaits inside concurrent batches', async () => {
    const batches = names.map((name) => {
      const client = clientFor(server.origin, name);
      return Promise.all(Array.from({ length: 8 }, (_, i) => client.ctx.query(i)));
    });
    const results = await Promise.all(batches);
    results.forEach((seen, i) => {
      expect(seen).toEqual(Array.from({ length: 8 }, () => names[i]));
    });
  });

  it('leaves nothing behind outside the call', () => {
    expect(SecurityContext.getUser()).toBeNull();
  });
});
