import express, { type RequestHandler } from 'express';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withSecurity, security } from '../../src/node/index.js';
import {
  APP,
  answer,
  cors as configuration,
  runCorsScenarios,
  type CorsSend,
} from '../support/cors-scenarios.js';
import { createTestTransform, respond } from '../support/fixture.js';
import { listen, type TestServer } from '../support/server.js';

/**
 * The `cors` package (Express' usual CORS middleware; installed through
 * @apollo/server, without types of its own here).
 */
const cors = createRequire(import.meta.url)('cors') as (options: {
  origin: string;
  credentials: boolean;
}) => RequestHandler;

const over =
  (server: () => TestServer): CorsSend =>
  async (method, path, headers) =>
    answer(await fetch(`${server().origin}${path}`, { method, headers }));

describe('CORS before authentication (plain node http)', () => {
  const { transform } = createTestTransform();
  transform.configCors(configuration);
  let server: TestServer;
  beforeAll(async () => {
    server = await listen(
      withSecurity(transform, async (req, res) => {
        res.end(await respond(req.url ?? '/'));
      }),
    );
  });
  afterAll(() => server.close());
  runCorsScenarios(() => over(() => server));
});

describe('CORS before authentication (Express)', () => {
  const { transform } = createTestTransform();
  transform.configCors(configuration);
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
  runCorsScenarios(() => over(() => server));
});

describe('CORS by the app’s own middleware (Express + the cors package, pass-through)', () => {
  let passThrough: TestServer;
  let without: TestServer;
  const app = (mode: 'pass-through' | false) => {
    const { transform: own } = createTestTransform();
    own.configCors(mode);
    const server = express();
    server.use(security(own));
    server.use(cors({ origin: APP, credentials: true }));
    server.use((req, res, next) => {
      respond(req.originalUrl).then((body) => res.send(body), next);
    });
    return createServer(server);
  };
  beforeAll(async () => {
    passThrough = await listen(app('pass-through'));
    without = await listen(app(false));
  });
  afterAll(async () => {
    await passThrough.close();
    await without.close();
  });

  const preflight = (server: TestServer) =>
    fetch(`${server.origin}/admin`, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'PUT' },
    });

  it('lets preflights through to the cors middleware without authentication', async () => {
    const response = await preflight(passThrough);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('still authenticates everything else', async () => {
    const options = await fetch(`${passThrough.origin}/admin`, { method: 'OPTIONS' });
    expect(options.status).toBe(401);
    const get = await fetch(`${passThrough.origin}/admin`, { headers: { origin: APP } });
    expect(get.status).toBe(401);
  });

  it('without a CORS setting refuses a preflight to a protected route with 403, not 401', async () => {
    const response = await preflight(without);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBeNull();
  });
});
