import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADAPTERS,
  bodyOf,
  tokensOf,
  endpointsOf,
  form,
  json,
  makeFixture,
  mount,
  type Fixture,
  type Harness,
} from './support.js';

describe.each(ADAPTERS)('token endpoints (%s)', (kind) => {
  let fixture: Fixture;
  let harness: Harness;
  beforeAll(async () => {
    fixture = makeFixture();
    harness = await mount(kind, endpointsOf(fixture));
  });
  afterAll(() => harness.close());

  const login = async (username = 'alice', password = 'alice-pw') =>
    harness.send('/auth/login', json({ username, password }));

  it('logs in with a JSON body: an RFC 6749 §5.1 token response, never cached', async () => {
    const reply = await login();
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.headers['pragma']).toBe('no-cache');
    const body = tokensOf(reply);
    expect(body).toEqual({
      access_token: expect.any(String) as unknown,
      token_type: 'Bearer',
      expires_in: 900,
      refresh_token: expect.any(String) as unknown,
      refresh_expires_in: 14 * 86_400,
    });
    expect(decodeProtectedHeader(body.access_token).typ).toBe('at+jwt');
    expect(decodeJwt(body.access_token)).toMatchObject({ sub: 'alice', roles: ['USER'] });
    const { claims } = await fixture.tokens.authenticator.validateToken(body.access_token);
    expect(claims).toMatchObject({ sub: 'alice', authorities: ['posts:read'] });
    expect(decodeProtectedHeader(body.refresh_token).typ).toBe('refresh+jwt');
  });

  it('logs in with a form body and grant_type=password (RFC 6749 §4.3.2)', async () => {
    const reply = await harness.send(
      '/auth/login',
      form({ grant_type: 'password', username: 'bob', password: 'bob-pw' }),
    );
    expect(reply.status).toBe(200);
    expect(decodeJwt(tokensOf(reply).access_token).sub).toBe('bob');
  });

  it('answers a wrong password, an unknown user and inactive accounts byte for byte alike', async () => {
    fixture.received.length = 0;
    const replies = [
      await login('alice', 'wrong'),
      await login('nobody', 'alice-pw'),
      // The right passwords of a locked, a disabled and two expired accounts.
      await login('carol', 'carol-pw'),
      await login('dave', 'dave-pw'),
      await login('erin', 'erin-pw'),
      await login('frank', 'frank-pw'),
      await login('', ''),
    ];
    const first = replies[0]!;
    expect(first.status).toBe(400);
    expect(bodyOf(first)).toEqual({ error: 'invalid_grant', error_description: 'Bad credentials' });
    const withoutDate = (headers: Readonly<Record<string, string>>) =>
      Object.entries(headers).filter(([name]) => name !== 'date');
    for (const reply of replies) {
      expect(reply.status).toBe(first.status);
      expect(withoutDate(reply.headers)).toEqual(withoutDate(first.headers));
      expect(reply.body).toBe(first.body);
    }
    // Only the events tell the cases apart.
    const reasons = fixture.received
      .filter((event) => event.type === 'authentication-failure')
      .map((event) => event.reason);
    expect(reasons).toEqual(
      expect.arrayContaining([
        'bad-credentials',
        'unknown-user',
        'account-locked',
        'account-disabled',
      ]),
    );
  });

  it('refuses a refresh while the account is locked, and keeps the family for after', async () => {
    const first = tokensOf(await login('bob', 'bob-pw'));
    const bob = fixture.users.get('bob')!;
    fixture.users.set('bob', bob.withAccountState({ locked: true }));
    try {
      const reply = await harness.send(
        '/auth/refresh',
        json({ refresh_token: first.refresh_token }),
      );
      expect(reply.status).toBe(400);
      expect(bodyOf(reply)['error']).toBe('invalid_grant');
    } finally {
      fixture.users.set('bob', bob);
    }
    const unlocked = await harness.send(
      '/auth/refresh',
      json({ refresh_token: first.refresh_token }),
    );
    expect(unlocked.status).toBe(200);
  });

  it('refreshes: a new pair for a refresh token, the old one spent', async () => {
    const first = tokensOf(await login());
    fixture.clock.advance(60_000); // past the grace window
    const reply = await harness.send('/auth/refresh', json({ refresh_token: first.refresh_token }));
    expect(reply.status).toBe(200);
    expect(reply.headers['cache-control']).toBe('no-store');
    const second = tokensOf(reply);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(second.refresh_token).fam).toBe(decodeJwt(first.refresh_token).fam);
    const byForm = await harness.send(
      '/auth/refresh',
      form({ grant_type: 'refresh_token', refresh_token: second.refresh_token }),
    );
    expect(byForm.status).toBe(200);
  });

  it('refuses a reused refresh token after the grace window and revokes its family', async () => {
    const first = tokensOf(await login());
    const next = tokensOf(
      await harness.send('/auth/refresh', json({ refresh_token: first.refresh_token })),
    );
    fixture.clock.advance(11_000); // the grace window is 10 s
    fixture.received.length = 0;
    const reused = await harness.send(
      '/auth/refresh',
      json({ refresh_token: first.refresh_token }),
    );
    expect(reused.status).toBe(400);
    expect(bodyOf(reused)).toEqual({
      error: 'invalid_grant',
      error_description: 'The refresh token is invalid, expired or revoked',
    });
    expect(fixture.received).toContainEqual(
      expect.objectContaining({ type: 'authentication-failure', reason: 'token-reused' }),
    );
    // The family is revoked: the owner's newest token is refused too.
    const newest = await harness.send('/auth/refresh', json({ refresh_token: next.refresh_token }));
    expect(newest.status).toBe(400);
    expect(bodyOf(newest)['error']).toBe('invalid_grant');
    expect(reused.body + newest.body).not.toContain(first.refresh_token.slice(-20));
  });

  it('refuses an access token at the refresh route, and garbage, as invalid_grant', async () => {
    const { access_token } = tokensOf(await login());
    for (const token of [access_token, 'garbage', 'a.b.c', 'x'.repeat(5000)]) {
      const reply = await harness.send('/auth/refresh', json({ refresh_token: token }));
      expect(reply.status).toBe(400);
      expect(bodyOf(reply)['error']).toBe('invalid_grant');
      expect(reply.body).not.toContain(token.slice(0, 30));
    }
  });

  it('refuses a refresh for a user who is gone, and ends the family', async () => {
    const first = tokensOf(await login('bob', 'bob-pw'));
    const bob = fixture.users.get('bob')!;
    fixture.users.delete('bob');
    try {
      const reply = await harness.send(
        '/auth/refresh',
        json({ refresh_token: first.refresh_token }),
      );
      expect(reply.status).toBe(400);
      expect(bodyOf(reply)['error']).toBe('invalid_grant');
    } finally {
      fixture.users.set('bob', bob);
    }
    const again = await harness.send('/auth/refresh', json({ refresh_token: first.refresh_token }));
    expect(bodyOf(again)['error']).toBe('invalid_grant');
  });

  it('answers malformed bodies with invalid_request, never a 500', async () => {
    const cases: [string, unknown][] = [
      ['{not json', 'The request body must be a JSON object'],
      ['', 'The request body must be a JSON object'],
      ['[1]', 'The request body must be a JSON object'],
      ['null', 'The request body must be a JSON object'],
      ['"alice"', 'The request body must be a JSON object'],
      ['{"username":"alice"}', 'username and password must be strings'],
      ['{"username":1,"password":[]}', 'username and password must be strings'],
      [
        '{"username":"alice","password":{"toString":"alice-pw"}}',
        'username and password must be strings',
      ],
    ];
    for (const [body, description] of cases) {
      const reply = await harness.send('/auth/login', json(body));
      expect(reply.status, body).toBe(400);
      expect(bodyOf(reply), body).toEqual({
        error: 'invalid_request',
        error_description: description,
      });
    }
    const refresh = await harness.send('/auth/refresh', json({ refresh_token: 42 }));
    expect(bodyOf(refresh)).toEqual({
      error: 'invalid_request',
      error_description: 'refresh_token must be a non-empty string',
    });
    // Not UTF-8: refused, not decoded into U+FFFD and checked as a password.
    const invalidUtf8 = await harness.send('/auth/login', {
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat([
        Buffer.from('{"username":"alice","password":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}'),
      ]),
    });
    expect(invalidUtf8.status).toBe(400);
    expect(bodyOf(invalidUtf8)['error']).toBe('invalid_request');
  });

  it("checks grant_type: the route's own or unsupported_grant_type; required in a form", async () => {
    const wrong = await harness.send(
      '/auth/login',
      json({ grant_type: 'client_credentials', username: 'alice', password: 'alice-pw' }),
    );
    expect(wrong.status).toBe(400);
    expect(bodyOf(wrong)['error']).toBe('unsupported_grant_type');
    const crossed = await harness.send(
      '/auth/refresh',
      form({ grant_type: 'password', refresh_token: 'x' }),
    );
    expect(bodyOf(crossed)['error']).toBe('unsupported_grant_type');
    const missing = await harness.send(
      '/auth/login',
      form({ username: 'alice', password: 'alice-pw' }),
    );
    expect(missing.status).toBe(400);
    expect(bodyOf(missing)['error']).toBe('invalid_request');
    const repeated = await harness.send('/auth/login', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&username=mallory&username=alice&password=alice-pw',
    });
    expect(repeated.status).toBe(400);
    expect(bodyOf(repeated)).toEqual({
      error: 'invalid_request',
      error_description: 'A parameter was sent more than once',
    });
  });

  it('reads only own properties: a __proto__ body logs nobody in and pollutes nothing', async () => {
    const polluting = '{"__proto__":{"username":"alice","password":"alice-pw","isAdmin":true}}';
    const reply = await harness.send('/auth/login', json(polluting));
    expect(reply.status).toBe(400);
    expect(bodyOf(reply)['error']).toBe('invalid_request');
    const nested = await harness.send(
      '/auth/login',
      json(
        '{"username":"alice","password":"alice-pw","constructor":{"prototype":{"isAdmin":true}},"__proto__":{"isAdmin":true}}',
      ),
    );
    expect(nested.status).toBe(200);
    expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined();
    expect(({} as Record<string, unknown>)['username']).toBeUndefined();
  });

  it('refuses other media types (415), other methods (405, Allow: POST)', async () => {
    for (const type of ['text/plain', 'application/jsonx', 'multipart/form-data; boundary=x']) {
      const reply = await harness.send('/auth/login', {
        headers: { 'content-type': type },
        body: '{"username":"alice","password":"alice-pw"}',
      });
      expect(reply.status, type).toBe(415);
      expect(bodyOf(reply)['error']).toBe('invalid_request');
    }
    const untyped = await harness.send('/auth/login', { body: 'x' });
    expect(untyped.status).toBe(415);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const reply = await harness.send('/auth/refresh', { method });
      expect(reply.status, method).toBe(405);
      expect(reply.headers['allow']).toBe('POST');
    }
    expect((await harness.send('/auth/other', json({}))).status).toBe(404);
  });

  it('accepts a charset parameter and any case in the media type', async () => {
    const reply = await harness.send('/auth/login', {
      headers: { 'content-type': 'Application/JSON; charset=UTF-8' },
      body: JSON.stringify({ username: 'alice', password: 'alice-pw' }),
    });
    expect(reply.status).toBe(200);
  });

  it('puts no password or token in any event', async () => {
    fixture.received.length = 0;
    const { refresh_token } = tokensOf(await login());
    await login('alice', 'a-wrong-secret-password');
    await harness.send('/auth/refresh', json({ refresh_token }));
    const text = JSON.stringify(fixture.received);
    expect(fixture.received.length).toBeGreaterThan(0);
    expect(text).not.toContain('alice-pw');
    expect(text).not.toContain('a-wrong-secret-password');
    expect(text).not.toContain(refresh_token.split('.')[2]);
  });
});

describe.each(ADAPTERS)('token endpoints without form bodies (%s)', (kind) => {
  let harness: Harness;
  beforeAll(async () => {
    const fixture = makeFixture();
    harness = await mount(
      kind,
      endpointsOf(fixture, {
        formBodies: false,
        loginPath: '/token',
        refreshPath: '/token/refresh',
      }),
    );
  });
  afterAll(() => harness.close());

  it('refuses a form (415) and serves the configured paths', async () => {
    const reply = await harness.send(
      '/token',
      form({ grant_type: 'password', username: 'alice', password: 'alice-pw' }),
    );
    expect(reply.status).toBe(415);
    expect(
      (await harness.send('/token', json({ username: 'alice', password: 'alice-pw' }))).status,
    ).toBe(200);
    expect((await harness.send('/auth/login', json({}))).status).toBe(404);
  });
});

describe.each(ADAPTERS)('token endpoints with errorResponse (%s)', (kind) => {
  let harness: Harness;
  beforeAll(async () => {
    const fixture = makeFixture();
    harness = await mount(
      kind,
      endpointsOf(fixture, {
        errorResponse: ({ status, error, description }) => {
          if (error === 'invalid_grant') {
            return {
              status: 401,
              headers: { 'content-type': 'text/plain' },
              body: 'Bad credentials',
            };
          }
          if (status === 405) return { status, headers: { allow: 'GET' }, body: description };
          if (status === 415) throw new Error('a faulty formatter');
          return undefined;
        },
      }),
    );
  });
  afterAll(() => harness.close());

  it('answers refusals in the application format, keeping no-store and the protocol headers', async () => {
    const bad = await harness.send('/auth/login', json({ username: 'alice', password: 'nope' }));
    expect(bad.status).toBe(401);
    expect(bad.body).toBe('Bad credentials');
    expect(bad.headers['cache-control']).toBe('no-store');
    const unknown = await harness.send('/auth/login', json({ username: 'nobody', password: 'x' }));
    expect(unknown.body).toBe(bad.body);
    const method = await harness.send('/auth/login', { method: 'GET' });
    expect(method.status).toBe(405);
    expect(method.headers['allow']).toBe('POST'); // the protocol header wins
    const faulty = await harness.send('/auth/login', {
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(faulty.status).toBe(415); // the default answer
    expect(bodyOf(faulty)['error']).toBe('invalid_request');
    const malformed = await harness.send('/auth/login', json('[1]'));
    expect(bodyOf(malformed)['error']).toBe('invalid_request');
  });
});
