import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Access,
  AuthenticationManager,
  AuthorizationManager,
  DelegatingPasswordEncoder,
  NoOpPasswordEncoder,
  SecurityEvents,
  SecurityTransform,
  User,
  type Authenticator,
  type SecurityEvent,
} from '../../src/index.js';
import { JwtAuthenticator, JwtConfig } from '../../src/jwt/index.js';
import { userOf, withSecurity } from '../../src/node/index.js';
import { basic, listen, rawRequest, type TestServer } from '../support/server.js';
import {
  NOW,
  NOW_S,
  SECRET,
  claimsAt,
  closedPort,
  compact,
  keyPairs,
  secretOf,
  sign,
} from './support.js';

const BEARER = 'Bearer realm="api"';
const BASIC = 'Basic realm="Restricted", charset="UTF-8"';
const invalidToken = (description: string) =>
  `${BEARER}, error="invalid_token", error_description="${description}"`;

interface App {
  readonly server: TestServer;
  readonly received: SecurityEvent[];
}

/** A node server: /public is open, /api/admin needs ADMIN, /api/... needs a user. */
async function startApp(
  authenticator: (events: SecurityEvents) => Authenticator,
  withBasic: boolean,
): Promise<App> {
  const events = new SecurityEvents();
  const received: SecurityEvent[] = [];
  events.on('*', (event) => {
    received.push(event);
  });
  const authorizer = AuthorizationManager.requestMatcher().bearer();
  if (withBasic) authorizer.httpBasic();
  authorizer
    .addMatcher('/public', Access.permitAll())
    .addMatcher('/api/admin', new Access().roles(['ADMIN']))
    .addMatcher('/api/.*', new Access().authenticated());
  const transform = new SecurityTransform({ events })
    .configAuthenticator(() => authenticator(events))
    .configAuthorizer(() => authorizer);
  const server = await listen(
    withSecurity(transform, (req, res) => {
      const user = userOf(req);
      res.end(`hello ${user?.username ?? 'anonymous'} [${[...(user?.roles ?? [])].join(',')}]`);
    }),
  );
  return { server, received };
}

const jwtOf = (events: SecurityEvents) =>
  new JwtAuthenticator(
    new JwtConfig(SECRET).clock(() => NOW),
    { events },
  );

async function get(app: App, target: string, authorization?: string) {
  const response = await rawRequest(
    app.server.origin,
    'GET',
    target,
    authorization === undefined ? {} : { authorization },
  );
  const challenge = /\r\nwww-authenticate: ([^\r\n]*)/iu.exec(response.headers)?.[1];
  return { ...response, challenge };
}

/** Asserts that neither the response nor any event holds the token or its signature. */
function expectNoToken(app: App, response: { headers: string; body: string }, token: string): void {
  const signature = token.split('.')[2] ?? token;
  for (const text of [response.headers, response.body, JSON.stringify(app.received)]) {
    expect(text).not.toContain(token);
    if (signature.length > 0) expect(text).not.toContain(signature);
  }
}

describe('bearer tokens over HTTP (node adapter)', () => {
  let app: App;
  let valid: string;
  beforeAll(async () => {
    app = await startApp(jwtOf, false);
    valid = await sign(SECRET, claimsAt({ roles: ['USER'] }));
  });
  afterAll(() => app.server.close());

  it('no token on a protected route: 401 with a bare Bearer challenge', async () => {
    const response = await get(app, '/api/data');
    expect(response.status).toBe(401);
    expect(response.challenge).toBe(BEARER);
  });

  it('a valid token: 200, twice (the second from the cache)', async () => {
    for (let i = 0; i < 2; i++) {
      const response = await get(app, '/api/data', `Bearer ${valid}`);
      expect(response.status).toBe(200);
      expect(response.body).toBe('hello alice [USER]');
    }
  });

  it('a valid token without the role: 403, no challenge', async () => {
    const response = await get(app, '/api/admin', `Bearer ${valid}`);
    expect(response.status).toBe(403);
    expect(response.challenge).toBeUndefined();
  });

  const refused: readonly (readonly [string, () => Promise<string> | string, string])[] = [
    ['expired', () => sign(SECRET, claimsAt({ exp: NOW_S - 60 })), 'The access token expired'],
    ['badly signed', () => sign(secretOf(64), claimsAt()), 'The access token signature is invalid'],
    [
      'alg none',
      () => compact({ alg: 'none', typ: 'at+jwt' }, claimsAt({ roles: ['ADMIN'] })),
      'The access token algorithm is not accepted',
    ],
    [
      'a refresh token',
      () => sign(SECRET, claimsAt(), { typ: 'refresh+jwt' }),
      'The token is not an access token',
    ],
    [
      'garbage',
      () => 'garbage-header.garbage-payload.garbage-signature',
      'The access token is malformed',
    ],
    ['too large', () => 'A'.repeat(9000), 'The access token is too large'],
    [
      'not yet valid',
      () => sign(SECRET, claimsAt({ nbf: NOW_S + 3600 })),
      'The access token is not valid yet',
    ],
  ];
  for (const [name, make, description] of refused) {
    it(`${name}: 401 invalid_token, and the token is in no response or event`, async () => {
      const token = await make();
      const before = app.received.length;
      const response = await get(app, '/api/data', `Bearer ${token}`);
      expect(response.status).toBe(401);
      expect(response.challenge).toBe(invalidToken(description));
      expect(app.received.slice(before)).toMatchObject([
        { type: 'authentication-failure', authenticationMethod: 'jwt', username: undefined },
        { type: 'access-denied' },
      ]);
      expectNoToken(app, response, token);
    });
  }

  it('the scheme without a token: 401 invalid_request (RFC 6750 §3.1)', async () => {
    for (const header of ['Bearer ', 'Bearer    ']) {
      const response = await get(app, '/api/data', header);
      expect(response.status).toBe(401);
      expect(response.challenge).toBe(
        `${BEARER}, error="invalid_request", error_description="The request has no access token"`,
      );
    }
  });

  it('a refused token on a permitAll route: 200 as anonymous', async () => {
    const token = await sign(SECRET, claimsAt({ exp: NOW_S - 60 }));
    const response = await get(app, '/public', `Bearer ${token}`);
    expect(response.status).toBe(200);
    expect(response.body).toBe('hello anonymous []');
  });

  it('a token in the query string is ignored: 401 without an error', async () => {
    const before = app.received.length;
    const response = await get(app, `/api/data?access_token=${valid}`);
    expect(response.status).toBe(401);
    expect(response.challenge).toBe(BEARER);
    expect(app.received.slice(before).map((e) => e.type)).toEqual(['access-denied']);
    expectNoToken(app, response, valid);
  });

  it('an unreachable key server fails closed with 503, not 401 (anonymous) or 500', async () => {
    const url = `http://127.0.0.1:${String(await closedPort())}/jwks`;
    const jwks = await startApp(
      (events) =>
        new JwtAuthenticator(
          JwtConfig.jwks(url).clock(() => NOW),
          { events },
        ),
      false,
    );
    try {
      const rs256 = await sign(keyPairs.rsa().privateKey, claimsAt(), { alg: 'RS256', kid: 'k' });
      const response = await get(jwks, '/api/data', `Bearer ${rs256}`);
      expect(response.status).toBe(503);
      expect(response.challenge).toBeUndefined();
    } finally {
      await jwks.server.close();
    }
  });
});

describe('Basic and Bearer chained with AuthenticationManager.anyOf', () => {
  let app: App;
  let valid: string;
  beforeAll(async () => {
    const encoder = new DelegatingPasswordEncoder()
      .withEncoder('noop', new NoOpPasswordEncoder())
      .defaultEncoder('noop');
    const store = AuthenticationManager.inMemoryAuthentication()
      .passwordEncoder(encoder)
      .withUser(new User('bob', '{noop}bob-pw').withRoles(['ADMIN']));
    app = await startApp((events) => AuthenticationManager.anyOf(jwtOf(events), store), true);
    valid = await sign(SECRET, claimsAt({ roles: ['USER'] }));
  });
  afterAll(() => app.server.close());

  it('no credentials: 401 listing both challenges', async () => {
    const response = await get(app, '/api/data');
    expect(response.status).toBe(401);
    expect(response.challenge).toBe(`${BEARER}, ${BASIC}`);
  });

  it('either mechanism authenticates', async () => {
    expect((await get(app, '/api/data', `Bearer ${valid}`)).body).toBe('hello alice [USER]');
    const asBob = await get(app, '/api/admin', basic('bob', 'bob-pw'));
    expect(asBob.status).toBe(200);
    expect(asBob.body).toBe('hello bob [ADMIN]');
  });

  it('a refused token: the Bearer challenge says invalid_token, Basic is still offered', async () => {
    const token = await sign(secretOf(64), claimsAt({ roles: ['ADMIN'] }));
    const response = await get(app, '/api/admin', `Bearer ${token}`);
    expect(response.status).toBe(401);
    expect(response.challenge).toBe(
      `${invalidToken('The access token signature is invalid')}, ${BASIC}`,
    );
    expectNoToken(app, response, token);
  });

  it('a wrong password: both challenges, no bearer error', async () => {
    const response = await get(app, '/api/data', basic('bob', 'nope'));
    expect(response.status).toBe(401);
    expect(response.challenge).toBe(`${BEARER}, ${BASIC}`);
  });
});
