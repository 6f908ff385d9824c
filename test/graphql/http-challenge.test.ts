/**
 * The GraphQL edge answers a 401 as the HTTP edge does (issue 15, defect 10): an
 * `UNAUTHENTICATED` denial carries `WWW-Authenticate` in `extensions.http.headers`,
 * which GraphQL Yoga and Apollo Server send as the response header, with the RFC 6750
 * error of a refused token; and a denial carries no stack trace, even where the server
 * shows stacks. Real graphql-http, Yoga and Apollo servers on 127.0.0.1.
 */
import { createServer } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { createHandler } from 'graphql-http/lib/use/http';
import { createYoga } from 'graphql-yoga';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JwtAuthenticator, JwtConfig } from '../../src/jwt/index.js';
import { createGraphQLContext, type GraphQLUserContext } from '../../src/graphql/index.js';
import { listen } from '../support/server.js';
import { createSchema, type ServerName } from './support.js';

const SECRET = 'graphql-edge-test-secret-0123456789abcdef-0123456789';
const schema = createSchema();
const security = createGraphQLContext({
  authenticator: new JwtAuthenticator(new JwtConfig(SECRET)),
  challenges: ['Bearer realm="api"'],
});

interface Server {
  readonly name: ServerName;
  readonly url: string;
  close(): Promise<void>;
}
let servers: Server[] = [];

beforeAll(async () => {
  const handler = createHandler({ schema, context: (req) => security(req) });
  const http = await listen(createServer((req, res) => void handler(req, res)));
  const yoga = createYoga({ schema, context: (initial) => security(initial), logging: false });
  const yogaServer = await listen(createServer(yoga.requestListener));
  // Stacks on, as in development: a denial must still show none.
  const apollo = new ApolloServer<GraphQLUserContext>({
    schema,
    includeStacktraceInErrorResponses: true,
  });
  const { url } = await startStandaloneServer(apollo, {
    listen: { port: 0, host: '127.0.0.1' },
    context: ({ req }) => security(req),
  });
  servers = [
    { name: 'graphql-http', url: `${http.origin}/graphql`, close: () => http.close() },
    { name: 'yoga', url: `${yogaServer.origin}/graphql`, close: () => yogaServer.close() },
    { name: 'apollo', url, close: () => apollo.stop() },
  ];
});
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function ask(name: ServerName, query: string, authorization?: string) {
  const server = servers.find((s) => s.name === name)!;
  const response = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { errors?: { extensions?: Record<string, unknown> }[] };
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body };
}

const token = (roles: string[]) =>
  new SignJWT({ roles })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .setSubject('user')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));
const EXPIRED = new SignJWT({ roles: ['USER'] })
  .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
  .setSubject('user')
  .setIssuedAt(1_000)
  .setExpirationTime(2_000)
  .sign(new TextEncoder().encode(SECRET));

describe.each(['yoga', 'apollo'] as const)('%s', (name) => {
  it('answers 401 with the configured challenge when no token was sent', async () => {
    const answer = await ask(name, '{ whoami }');
    expect(answer.status).toBe(401);
    expect(answer.challenge).toBe('Bearer realm="api"');
  });

  it('says invalid_token when the token was refused (expired)', async () => {
    const answer = await ask(name, '{ whoami }', `Bearer ${await EXPIRED}`);
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(
      /^Bearer realm="api", error="invalid_token", error_description="[^"]+"$/u,
    );
  });

  it('sends no challenge with a 403 or a success', async () => {
    const forbidden = await ask(name, '{ denyAll }', `Bearer ${await token(['USER'])}`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.challenge).toBeNull();
    const ok = await ask(name, '{ whoami }', `Bearer ${await token(['USER'])}`);
    expect(ok.status).toBe(200);
    expect(ok.challenge).toBeNull();
  });
});

describe('graphql-http', () => {
  it('answers 200 (its choice for partial results), the challenge in the error', async () => {
    const answer = await ask('graphql-http', '{ whoami }', `Bearer ${await EXPIRED}`);
    expect(answer.status).toBe(200);
    const http = answer.body.errors?.[0]?.extensions?.['http'] as {
      headers: Record<string, string>;
    };
    expect(http.headers['www-authenticate']).toMatch(/^Bearer realm="api", error="invalid_token"/u);
  });
});

describe('no stack trace in a denial', () => {
  it('even from Apollo with includeStacktraceInErrorResponses', async () => {
    const answer = await ask('apollo', '{ whoami }');
    expect(answer.body.errors?.[0]?.extensions).not.toHaveProperty('stacktrace');
  });
});
