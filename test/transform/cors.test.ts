import { describe, expect, it } from 'vitest';
import {
  Access,
  AuthorizationManager,
  CorsConfiguration,
  SecurityEvents,
  SecurityTransform,
  User,
  createSecurityRequest,
  type Authenticator,
  type SecurityEvent,
  type SecurityOutcome,
} from '../../src/index.js';

const APP = 'https://app.example';

const request = (method: string, url: string, headers: Record<string, string> = {}) =>
  createSecurityRequest({ method, url, header: (name) => headers[name] });
const preflight = (url = '/admin', origin = APP) =>
  request('OPTIONS', url, { origin, 'access-control-request-method': 'GET' });

/** An authenticator that counts its calls (a preflight must not reach it). */
function counting(user: User | null, delay = false): Authenticator & { calls: number } {
  const authenticator = {
    calls: 0,
    getUser() {
      authenticator.calls++;
      return delay ? Promise.resolve(user) : user;
    },
  };
  return authenticator;
}

const rules = () =>
  AuthorizationManager.requestMatcher()
    .loginUrl('/login')
    .httpBasic()
    .addMatcher('/admin', Access.roles(['ADMIN']))
    .anyRequest(Access.permitAll());

const response = (outcome: SecurityOutcome) => {
  if (outcome.proceed) throw new Error('expected an answer');
  return outcome.response;
};

describe('SecurityTransform cors', () => {
  it('answers a preflight before authentication, with no call to the authenticator', async () => {
    const authenticator = counting(null);
    const transform = new SecurityTransform({
      authenticator,
      authorizer: rules(),
      cors: { allowedOrigins: [APP] },
    });
    const outcome = await transform.handle(preflight());
    expect(response(outcome).status).toBe(204);
    expect(authenticator.calls).toBe(0);
  });

  it('runs the firewall first: a preflight to a malformed path gets 400', async () => {
    const transform = new SecurityTransform({ cors: { allowedOrigins: [APP] } });
    expect(response(await transform.handle(preflight('/admin;x'))).status).toBe(400);
  });

  it('publishes request-rejected (reason cors) for a refused preflight', async () => {
    const events = new SecurityEvents();
    const seen: SecurityEvent[] = [];
    events.on('request-rejected', (event) => {
      seen.push(event);
    });
    const transform = new SecurityTransform({ events, cors: { allowedOrigins: [APP] } });
    expect(
      response(await transform.handle(preflight('/admin', 'https://evil.example'))).status,
    ).toBe(403);
    expect(seen).toEqual([expect.objectContaining({ reason: 'cors' })]);
  });

  it('adds the headers after an asynchronous authenticator, to grants and denials', async () => {
    const transform = new SecurityTransform({
      authenticator: counting(new User('u', 'x').withRoles(['USER']), true),
      authorizer: rules(),
      cors: new CorsConfiguration({ allowedOrigins: [APP], allowCredentials: true }),
    });
    const granted = await transform.handle(request('GET', '/public', { origin: APP }));
    expect(granted.proceed && granted.headers).toEqual({
      vary: 'Origin',
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
    });
    const forbidden = response(await transform.handle(request('GET', '/admin', { origin: APP })));
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers['access-control-allow-origin']).toBe(APP);
    expect(forbidden.headers['vary']).toBe('Origin');
  });

  it('without CORS: a refused preflight gets 403, not 401 or a login redirect; a public one proceeds', async () => {
    const transform = new SecurityTransform({ authorizer: rules() });
    const refused = response(
      await transform.handle(
        request('OPTIONS', '/admin', {
          origin: APP,
          'access-control-request-method': 'GET',
          accept: 'text/html',
        }),
      ),
    );
    expect(refused.status).toBe(403);
    expect(refused.headers['www-authenticate']).toBeUndefined();
    expect((await transform.handle(preflight('/public'))).proceed).toBe(true);
    // Not a preflight (no Access-Control-Request-Method): the rules answer as usual.
    expect(response(await transform.handle(request('OPTIONS', '/admin'))).status).toBe(401);
  });

  it("'pass-through' lets preflights through unauthenticated and nothing else", async () => {
    const authenticator = counting(null);
    const transform = new SecurityTransform({ authenticator, authorizer: rules() }).configCors(
      'pass-through',
    );
    expect(await transform.handle(preflight())).toEqual({ proceed: true, user: null });
    expect(authenticator.calls).toBe(0);
    expect(response(await transform.handle(request('GET', '/admin', { origin: APP }))).status).toBe(
      401,
    );
    transform.configCors(false);
    expect(response(await transform.handle(preflight())).status).toBe(403);
  });
});
