import express from 'express';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecurityContext } from '../../src/index.js';
import { userOf, security } from '../../src/node/index.js';
import { createTestTransform, respond } from '../support/fixture.js';
import { runContextScenario, runScenarios } from '../support/scenarios.js';
import { listen, type TestServer } from '../support/server.js';

describe('portcullis/node security() on Express', () => {
  const { transform, events } = createTestTransform();
  const denied: string[] = [];
  events.on('access-denied', (event) => {
    denied.push(event.rule);
  });
  let server: TestServer;
  beforeAll(async () => {
    const app = express();
    app.use(security(transform));
    app.use(express.json());
    // Express matches routes case-insensitively: /ADMIN reaches this handler.
    app.get('/admin', (_req, res) => void respond('/admin').then((b) => res.send(b)));
    app.get('/admin/dashboard', (_req, res) => void respond('/').then((b) => res.send(b)));
    app.post('/ctx', (req, res) => {
      const body = req.body as { n?: number };
      void respond('/ctx').then((b) => res.send(body.n === 1 ? b : 'no body'));
    });
    app.use((req, res) => {
      void respond(req.path).then((b) => res.send(b));
    });
    server = await listen(createServer(app));
  });
  afterAll(() => server.close());

  runScenarios(() => server.origin);
  runContextScenario(() => server.origin);
  runContextScenario(() => server.origin, 'POST', JSON.stringify({ n: 1 }));

  it('publishes access-denied with the rule', async () => {
    denied.length = 0;
    await fetch(`${server.origin}/admin`);
    expect(denied).toHaveLength(1);
    expect(denied[0]).toContain('ADMIN');
  });

  it('sees the full path below a mount point (originalUrl)', async () => {
    const app = express();
    const router = express.Router();
    router.use(security(transform));
    router.get('/admin', (req, res) => {
      res.send(
        `inner ${userOf(req)?.username ?? 'anonymous'} ${SecurityContext.getUser()?.username ?? '-'}`,
      );
    });
    app.use('/', router);
    const mounted = await listen(createServer(app));
    try {
      expect((await fetch(`${mounted.origin}/admin`)).status).toBe(401);
    } finally {
      await mounted.close();
    }
  });
});
