import express from 'express';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe } from 'vitest';
import { secureHandler, security } from '../../src/node/index.js';
import { runDuplicateCredentialScenarios } from '../support/duplicate-credentials.js';
import { createTestTransform, respond } from '../support/fixture.js';
import { listen, type TestServer } from '../support/server.js';

describe('portcullis/node: two credentials are refused (plain http)', () => {
  const { transform, events } = createTestTransform();
  let server: TestServer;
  beforeAll(async () => {
    server = await listen(
      secureHandler(transform, async (req, res) => {
        res.end(await respond(req.url ?? '/'));
      }),
    );
  });
  afterAll(() => server.close());
  runDuplicateCredentialScenarios(() => server.origin, events);
});

describe('portcullis/node: two credentials are refused (Express)', () => {
  const { transform, events } = createTestTransform();
  let server: TestServer;
  beforeAll(async () => {
    const app = express();
    app.use(security(transform));
    app.use((req, res, next) => {
      respond(req.originalUrl).then((body) => res.send(body), next);
    });
    server = await listen(createServer(app));
  });
  afterAll(() => server.close());
  runDuplicateCredentialScenarios(() => server.origin, events);
});
