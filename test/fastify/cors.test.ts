import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe } from 'vitest';
import { security } from '../../src/fastify/index.js';
import { answer, cors, runCorsScenarios } from '../support/cors-scenarios.js';
import { createTestTransform, respond } from '../support/fixture.js';

describe('CORS before authentication (Fastify)', () => {
  const { transform } = createTestTransform();
  transform.configCors(cors);
  let app: FastifyInstance;
  let origin = '';
  beforeAll(async () => {
    app = Fastify();
    await app.register(security, { transform });
    app.all('/*', (request) => respond(request.url));
    origin = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());
  runCorsScenarios(
    () => async (method, path, headers) =>
      answer(await fetch(`${origin}${path}`, { method, headers })),
  );
});
