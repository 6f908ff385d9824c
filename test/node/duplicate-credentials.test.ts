import express from 'express';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationManager,
  DelegatingPasswordEncoder,
  NoOpPasswordEncoder,
  User,
} from '../../src/index.js';
import { createGraphQLContext } from '../../src/graphql/index.js';
import { withSecurity, security } from '../../src/node/index.js';
import { runDuplicateCredentialScenarios } from '../support/duplicate-credentials.js';
import { createTestTransform, respond } from '../support/fixture.js';
import { sendRaw } from '../support/raw-http.js';
import { basic, listen, type TestServer } from '../support/server.js';

describe('portcullis/node: two credentials are refused (plain http)', () => {
  const { transform, events } = createTestTransform();
  let server: TestServer;
  beforeAll(async () => {
    server = await listen(
      withSecurity(transform, async (req, res) => {
        res.end(await respond(req.url ?? '/'));
      }),
    );
  });
  afterAll(() => server.close());
  runDuplicateCredentialScenarios(() => server.origin, events);
});

describe('portcullis/node: two credentials are refused (Express)', () => {
  const { transform, events } = createTestTransform();
  let server: TestServer;
  beforeAll(async () => {
    const app = express();
    app.use(security(transform));
    app.use((req, res, next) => {
      respond(req.originalUrl).then((body) => res.send(body), next);
    });
    server = await listen(createServer(app));
  });
  afterAll(() => server.close());
  runDuplicateCredentialScenarios(() => server.origin, events);
});

describe('context factories, which run no firewall, authenticate nobody from two credentials', () => {
  const authenticator = AuthenticationManager.inMemoryAuthentication()
    .passwordEncoder(new DelegatingPasswordEncoder().withEncoder('noop', new NoOpPasswordEncoder()))
    .withUser(new User('user', '{noop}user-pw').withRoles(['USER']))
    .withUser(new User('admin', '{noop}admin-pw').withRoles(['ADMIN']));
  const security = createGraphQLContext({ authenticator });
  let server: TestServer;
  beforeAll(async () => {
    server = await listen((req, res) => {
      security(req).then(
        ({ user }) => res.end(user?.username ?? 'anonymous'),
        () => res.end('error'),
      );
    });
  });
  afterAll(() => server.close());

  it.each([
    ['Basic admin + Basic user', [basic('admin', 'admin-pw'), basic('user', 'user-pw')]],
    ['Basic user + Bearer', [basic('user', 'user-pw'), 'Bearer x']],
  ])('%s: the joined value is no credential', async (_, credentials) => {
    const host: [string, string] = ['Host', new URL(server.origin).host];
    const one = await sendRaw(server.origin, 'GET / HTTP/1.1', [
      host,
      ['Authorization', credentials[0] ?? ''],
    ]);
    expect(one.body).not.toBe('anonymous');
    const two = await sendRaw(server.origin, 'GET / HTTP/1.1', [
      host,
      ...credentials.map((value): [string, string] => ['Authorization', value]),
    ]);
    expect(two.body).toBe('anonymous');
  });
});
