/**
 * Each directive × each demo user, over real HTTP, on graphql-http, GraphQL Yoga
 * and Apollo Server: the data or the error code, and what each server does with
 * the status of a partial result.
 */
import { GraphQLError } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from '../support/server.js';
import {
  closeAll,
  codes,
  createSchema,
  DIRECTIVE_FIELDS,
  post,
  SERVERS,
  startServers,
  WHO,
  type Answer,
  type GraphQLServer,
  type ServerName,
  type Who,
} from './support.js';

type Outcome = 'OK' | 'UNAUTHENTICATED' | 'FORBIDDEN';
const OK = 'OK';
const U = 'UNAUTHENTICATED';
const F = 'FORBIDDEN';

/** What each demo user gets from each directive field of the test schema. */
const EXPECTED: Record<string, Record<Who, Outcome>> = {
  open: { anonymous: OK, user: OK, writer: OK, admin: OK, guest: OK },
  securedList: { anonymous: U, user: F, writer: F, admin: OK, guest: F },
  securedOne: { anonymous: U, user: OK, writer: OK, admin: OK, guest: F },
  rolesAllowed: { anonymous: U, user: OK, writer: OK, admin: OK, guest: F },
  preAuthorizeExpr: { anonymous: U, user: OK, writer: OK, admin: OK, guest: F },
  preAuthorizeAuthority: { anonymous: U, user: F, writer: OK, admin: OK, guest: F },
  preAuthorizeBoth: { anonymous: U, user: F, writer: F, admin: OK, guest: F },
  permitAll: { anonymous: OK, user: OK, writer: OK, admin: OK, guest: OK },
  denyAll: { anonymous: U, user: F, writer: F, admin: F, guest: F },
  authenticated: { anonymous: U, user: OK, writer: OK, admin: OK, guest: OK },
};

/**
 * The HTTP status of a response whose only error is a denial. graphql-http follows
 * the GraphQL-over-HTTP spec (200 for any execution result) and leaves
 * `extensions.http` in the body; Yoga and Apollo turn `extensions.http.status`
 * into the response status, even for a partial result that has data, and remove
 * `http` from the body.
 */
const STATUS: Record<ServerName, Record<Outcome, number>> = {
  'graphql-http': { OK: 200, UNAUTHENTICATED: 200, FORBIDDEN: 200 },
  yoga: { OK: 200, UNAUTHENTICATED: 401, FORBIDDEN: 403 },
  apollo: { OK: 200, UNAUTHENTICATED: 401, FORBIDDEN: 403 },
};

let servers: readonly GraphQLServer[] = [];
beforeAll(async () => {
  servers = await startServers(createSchema());
});
afterAll(() => closeAll(servers));
const urlOf = (name: ServerName): string => servers.find((s) => s.name === name)!.url;

it('covers every directive field of the test schema', () => {
  expect(Object.keys(EXPECTED)).toEqual(DIRECTIVE_FIELDS);
});

describe.each(SERVERS)('%s', (name) => {
  for (const [field, expected] of Object.entries(EXPECTED)) {
    it(`${field}: each demo user and anonymous`, async () => {
      const seen: Record<string, unknown> = {};
      const wanted: Record<string, unknown> = {};
      for (const who of WHO) {
        const answer = await post(urlOf(name), `{ ${field} }`, { who });
        const outcome = expected[who];
        const [error] = answer.errors ?? [];
        seen[who] = {
          status: answer.status,
          data: answer.data,
          code: error?.extensions?.['code'],
          http: error?.extensions?.['http'],
          path: error?.path,
        };
        wanted[who] = {
          status: STATUS[name][outcome],
          data: { [field]: outcome === OK ? who : null },
          code: outcome === OK ? undefined : outcome,
          http:
            outcome === OK || name !== 'graphql-http'
              ? undefined
              : { status: outcome === U ? 401 : 403 },
          path: outcome === OK ? undefined : [field],
        };
      }
      expect(seen).toEqual(wanted);
    });
  }

  it('resolves every allowed field of one operation and denies the others (partial result)', async () => {
    const query = `{ ${DIRECTIVE_FIELDS.join(' ')} }`;
    for (const who of WHO) {
      const answer = await post(urlOf(name), query, { who });
      const data: Record<string, unknown> = {};
      const denied: Record<string, unknown> = {};
      for (const field of DIRECTIVE_FIELDS) {
        const outcome = EXPECTED[field]![who];
        data[field] = outcome === OK ? who : null;
        if (outcome !== OK) denied[field] = outcome;
      }
      expect(answer.data).toEqual(data);
      expect(codes(answer)).toEqual(denied);
      // Every demo user is denied something (denyAll), so Yoga and Apollo never answer 200.
      expect(answer.status).toBe(STATUS[name][who === 'anonymous' ? U : F]);
    }
  });

  it('runs the resolver inside the SecurityContext of the context user', async () => {
    const answer = await post(urlOf(name), '{ whoami }', { who: 'writer' });
    expect(answer.data).toEqual({ whoami: 'writer/writer' });
  });

  const BAD_CREDENTIALS: [string, string][] = [
    ['a wrong password', basic('user', 'not-the-password')],
    ['an unknown user', basic('mallory', 'mallory-pw')],
    ['a password for another user', basic('admin', 'user-pw')],
    ['a legacy hash id nobody registered', basic('legacy', 'legacy-pw')],
    ['Basic without a colon', `Basic ${Buffer.from('user').toString('base64')}`],
    ['Basic with invalid base64', 'Basic !!!not-base64***'],
    ['Basic with no credentials', 'Basic'],
    ['an unknown scheme', 'Bearer abc.def.ghi'],
    ['a header of garbage', '\u00ff\u00fe garbage'],
    ['a very long header', `Basic ${'A'.repeat(8000)}`],
  ];

  for (const [label, authorization] of BAD_CREDENTIALS) {
    it(`treats ${label} as anonymous: public fields resolve, protected ones answer UNAUTHENTICATED`, async () => {
      const answer = await post(urlOf(name), '{ open securedOne }', {
        headers: { authorization },
      });
      expect(answer.status).not.toBe(500);
      expect(answer.status).toBe(STATUS[name][U]);
      expect(answer.data).toEqual({ open: 'anonymous', securedOne: null });
      expect(codes(answer)).toEqual({ securedOne: U });
    });
  }

  it('never reads a credential from the request body (connectionParams are for WebSockets)', async () => {
    const credential = { authorization: basic('admin', 'admin-pw') };
    const send = async (body: object) => {
      const response = await fetch(urlOf(name), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: '{ open securedOne }', ...body }),
      });
      const answer = (await response.json()) as Omit<Answer, 'status'>;
      return { ...answer, status: response.status };
    };
    const inExtensions = await send({
      extensions: { connectionParams: credential, headers: credential },
    });
    expect(inExtensions.data).toEqual({ open: 'anonymous', securedOne: null });
    expect(codes(inExtensions)).toEqual({ securedOne: U });

    const topLevel = await send({ connectionParams: credential, extra: { request: credential } });
    if (name === 'yoga') {
      // Yoga refuses parameters the GraphQL-over-HTTP spec does not define.
      expect(topLevel.status).toBe(400);
      expect(topLevel.data).toBeUndefined();
    } else {
      expect(topLevel.data).toEqual({ open: 'anonymous', securedOne: null });
      expect(codes(topLevel)).toEqual({ securedOne: U });
    }
  });

  it('never puts the rule or the credential in a denial', async () => {
    const answer = await post(urlOf(name), '{ securedList preAuthorizeBoth }', { who: 'user' });
    const text = JSON.stringify(answer);
    for (const secret of ['ADMIN', 'hasRole', 'users:write', 'user-pw', 'Basic']) {
      expect(text).not.toContain(secret);
    }
    expect(answer.errors?.map((e) => e.message)).toEqual(['Access is denied', 'Access is denied']);
  });
});

describe('createError without extensions.http: partial results stay 200 everywhere', () => {
  let plain: readonly GraphQLServer[] = [];
  beforeAll(async () => {
    plain = await startServers(
      createSchema({
        createError: (denial) =>
          new GraphQLError(denial.message, { extensions: { code: denial.code } }),
      }),
    );
  });
  afterAll(() => closeAll(plain));

  it.each(SERVERS)('%s', async (name) => {
    const url = plain.find((s) => s.name === name)!.url;
    const answer = await post(url, '{ open securedList }', { who: 'user' });
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({ open: 'user', securedList: null });
    expect(answer.errors?.map((e) => e.extensions)).toEqual([{ code: F }]);
  });
});
