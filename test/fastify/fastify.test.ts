import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecurityContext, SecurityTransform } from '../../src/index.js';
import { security } from '../../src/fastify/index.js';
import { createTestTransform, respond } from '../support/fixture.js';
import { postLate, runContextScenario, runScenarios } from '../support/scenarios.js';
import { basic } from '../support/server.js';

describe('portcullis/fastify plugin', () => {
  const { transform } = createTestTransform();
  let app: FastifyInstance;
  let origin = '';
  beforeAll(async () => {
    app = Fastify();
    await app.register(security, { transform });
    app.post('/ctx', async (request) => {
      const body = request.body as { n?: number };
      return body.n === 1 ? respond('/ctx') : 'no body';
    });
    // A synchronous handler reading the context right after body parsing.
    app.post('/late', (request) => {
      const body = request.body as { n?: number };
      return `${body.n === 1 ? 'ctx' : 'no body'} ${SecurityContext.getUser()?.username ?? 'nobody'}`;
    });
    app.get('/whoami', (request) => ({ user: request.user?.username ?? null }));
    app.all('/*', (request) => respond(request.url));
    origin = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  runScenarios(() => origin);
  runContextScenario(() => origin);
  runContextScenario(() => origin, 'POST', JSON.stringify({ n: 1 }));

  it('keeps the SecurityContext through late body parsing into a synchronous handler', async () => {
    const texts = await Promise.all(
      (['user', 'writer', 'admin'] as const).map((name) =>
        postLate(origin, '/late', basic(name, `${name}-pw`), '{"n":1}'),
      ),
    );
    expect(texts).toEqual(['ctx user', 'ctx writer', 'ctx admin']);
  });

  it('decorates request.user', async () => {
    const anonymous = await fetch(`${origin}/whoami`);
    expect(await anonymous.json()).toEqual({ user: null });
    const admin = await fetch(`${origin}/whoami`, {
      headers: { authorization: `Basic ${Buffer.from('admin:admin-pw').toString('base64')}` },
    });
    expect(await admin.json()).toEqual({ user: 'admin' });
  });

  it('refuses registration without a SecurityTransform', async () => {
    const bad = Fastify();
    await expect(
      bad.register(security, { transform: JSON.parse('{}') as SecurityTransform }).ready(),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' });
  });
});
