import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe } from 'vitest';
import { security } from '../../src/fastify/index.js';
import { runDuplicateCredentialScenarios } from '../support/duplicate-credentials.js';
import { createTestTransform, respond } from '../support/fixture.js';

describe('portcullis/fastify: two credentials are refused', () => {
  const { transform, events } = createTestTransform();
  let app: FastifyInstance;
  let origin = '';
  beforeAll(async () => {
    app = Fastify();
    await app.register(security, { transform });
    app.all('/*', (request) => respond(request.url));
    origin = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());
  runDuplicateCredentialScenarios(() => origin, events);
});
