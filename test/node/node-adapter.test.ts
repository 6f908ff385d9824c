import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecurityContext } from '../../src/index.js';
import { userOf, withSecurity } from '../../src/node/index.js';
import { createTestTransform, respond } from '../support/fixture.js';
import { runContextScenario, runScenarios } from '../support/scenarios.js';
import { listen, type TestServer } from '../support/server.js';

describe('portcullis/node withSecurity (plain http)', () => {
  const { transform } = createTestTransform();
  let server: TestServer;
  beforeAll(async () => {
    server = await listen(
      withSecurity(transform, async (req, res) => {
        if (req.method === 'POST' && req.url === '/ctx') {
          // Read the body by hand, callback style: 'data' and 'end' come from the
          // socket, later, and the user is read inside the listener.
          let raw = '';
          req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
          req.on('end', () => {
            const name = SecurityContext.getUser()?.username ?? 'nobody';
            res.end(raw === '{"n":1}' ? `ctx ${name}` : 'no body');
          });
          return;
        }
        const body = await respond(req.url ?? '/');
        res.setHeader('x-user', req.user?.username ?? '-');
        res.setHeader('x-get-user', userOf(req)?.username ?? '-');
        res.end(body);
      }),
    );
  });
  afterAll(() => server.close());

  runScenarios(() => server.origin);
  runContextScenario(() => server.origin);
  runContextScenario(() => server.origin, 'POST', JSON.stringify({ n: 1 }));

  it('types the user on the request and getUser agrees', async () => {
    const response = await fetch(`${server.origin}/`, {
      headers: { authorization: `Basic ${Buffer.from('admin:admin-pw').toString('base64')}` },
    });
    expect(response.headers.get('x-user')).toBe('admin');
    expect(response.headers.get('x-get-user')).toBe('admin');
  });

  it('answers 500 without details when the handler throws', async () => {
    const failing = await listen(
      withSecurity(transform, () => {
        throw new Error('secret detail');
      }),
    );
    try {
      const response = await fetch(`${failing.origin}/`);
      expect(response.status).toBe(500);
      expect(await response.text()).not.toContain('secret');
    } finally {
      await failing.close();
    }
  });
});
