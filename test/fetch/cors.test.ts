import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { Access, AuthorizationManager, SecurityTransform } from '../../src/index.js';
import { honoSecurity, withSecurity } from '../../src/fetch/index.js';
import { APP, answer, cors, runCorsScenarios } from '../support/cors-scenarios.js';
import { createTestTransform, respond } from '../support/fixture.js';

const request = (method: string, path: string, headers: Record<string, string>) =>
  new Request(`http://api.example${path}`, { method, headers });

/** Public routes: the handler's own response gets the CORS headers. */
const everyone = AuthorizationManager.requestMatcher().anyRequest(Access.permitAll());

describe('CORS before authentication (Fetch withSecurity)', () => {
  const { transform } = createTestTransform();
  transform.configCors(cors);
  const handler = withSecurity(
    transform,
    async (req) => new Response(await respond(new URL(req.url).pathname)),
  );
  runCorsScenarios(
    () => async (method, path, headers) => answer(await handler(request(method, path, headers))),
  );

  it('merges Vary with the handler’s and keeps the handler’s own CORS headers', async () => {
    const own = withSecurity(
      new SecurityTransform({ cors, authorizer: everyone }),
      () =>
        new Response('x', {
          headers: { vary: 'Accept-Encoding', 'access-control-expose-headers': 'x-own' },
        }),
    );
    const response = await own(request('GET', '/', { origin: APP }));
    expect(response.headers.get('vary')).toBe('Accept-Encoding, Origin');
    expect(response.headers.get('access-control-expose-headers')).toBe('x-own');
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('copies a response whose headers are immutable', async () => {
    const own = withSecurity(new SecurityTransform({ cors, authorizer: everyone }), () =>
      Response.redirect(`${APP}/x`, 302),
    );
    const response = await own(request('GET', '/', { origin: APP }));
    expect(response.status).toBe(302);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
  });
});

describe('CORS before authentication (Hono)', () => {
  const { transform } = createTestTransform();
  transform.configCors(cors);
  const app = new Hono();
  app.use(honoSecurity(transform));
  app.all('*', async (c) => c.text(await respond(c.req.path)));
  runCorsScenarios(
    () => async (method, path, headers) => answer(await app.fetch(request(method, path, headers))),
  );
});
