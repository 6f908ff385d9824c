import { createServer } from 'node:http';
import Fastify from 'fastify';
import {
  AuthenticationManager,
  DelegatingPasswordEncoder,
  NoOpPasswordEncoder,
  User,
  type MemoryAuthenticator,
  type SecurityEvent,
  type SecurityEvents,
  type UserRepository,
} from '../../src/index.js';
import { securityRoutes as fastifyRoutes } from '../../src/fastify/index.js';
import { securityRoutes as fetchRoutes } from '../../src/fetch/index.js';
import { securityRoutes as nodeRoutes } from '../../src/node/index.js';
import {
  JwtConfig,
  JwtTokenService,
  tokenEndpoints,
  type JwtTokenServiceOptions,
  type TokenEndpoints,
  type TokenEndpointsOptions,
} from '../../src/jwt/index.js';
import { recordEvents } from '../support/events.js';
import { testClock, type TestClock } from '../support/clock.js';
import { listen } from '../support/server.js';

export const SECRET = 'token-routes-test-secret-0123456789abcdef';
export const JSON_TYPE = 'application/json';
export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Everything one test needs: a store of users, a token service on a manual clock, events. */
export interface Fixture {
  readonly clock: TestClock;
  readonly events: SecurityEvents;
  readonly received: SecurityEvent[];
  readonly store: MemoryAuthenticator;
  readonly tokens: JwtTokenService;
  readonly users: Map<string, User>;
  readonly repository: UserRepository;
}

export function makeFixture(serviceOptions: JwtTokenServiceOptions = {}): Fixture {
  const { events, received } = recordEvents();
  const clock = testClock();
  const encoder = new DelegatingPasswordEncoder()
    .withEncoder('noop', new NoOpPasswordEncoder())
    .defaultEncoder('noop');
  const alice = new User('alice', '{noop}alice-pw', ['USER'], ['posts:read']);
  const bob = new User('bob', '{noop}bob-pw', ['USER']);
  let store = AuthenticationManager.inMemoryAuthentication({ events })
    .passwordEncoder(encoder)
    .withUser(alice)
    .withUser(bob);
  // Accounts whose right password is refused: locked, disabled, expired.
  const inactive = [
    new User('carol', '{noop}carol-pw', ['USER']).withAccountState({ locked: true }),
    new User('dave', '{noop}dave-pw', ['USER']).withAccountState({ enabled: false }),
    new User('erin', '{noop}erin-pw', ['USER']).withAccountState({ accountExpired: true }),
    new User('frank', '{noop}frank-pw', ['USER']).withAccountState({ credentialsExpired: true }),
  ];
  for (const user of inactive) store = store.withUser(user);
  const users = new Map([alice, bob, ...inactive].map((user) => [user.username, user]));
  const config = new JwtConfig(SECRET).issuer('https://issuer.test').clock(clock.now);
  const tokens = new JwtTokenService(config, { events, ...serviceOptions });
  const repository: UserRepository = { findByUsername: (name) => users.get(name) ?? null };
  return { clock, events, received, store, tokens, users, repository };
}

/** The endpoints of a fixture, with `overrides`. */
export function endpointsOf(
  fixture: Fixture,
  overrides: Partial<TokenEndpointsOptions> = {},
): TokenEndpoints {
  return tokenEndpoints({
    authenticator: fixture.store,
    tokens: fixture.tokens,
    users: fixture.repository,
    events: fixture.events,
    ...overrides,
  });
}

/** One answer, as the client saw it. */
export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface SendOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

/** The endpoints mounted on one adapter. */
export interface Harness {
  /** `http://127.0.0.1:port` for the adapters that listen. */
  readonly origin: string | undefined;
  send(path: string, options?: SendOptions): Promise<Reply>;
  close(): Promise<void>;
}

export type AdapterKind = 'node' | 'fetch' | 'fastify';
export const ADAPTERS: readonly AdapterKind[] = ['node', 'fetch', 'fastify'];

async function replyOf(response: Response): Promise<Reply> {
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}

const overHttp =
  (origin: string) =>
  async (path: string, options: SendOptions = {}) =>
    replyOf(
      await fetch(`${origin}${path}`, {
        method: options.method ?? 'POST',
        headers: options.headers ?? {},
        ...(options.body === undefined ? {} : { body: options.body as BodyInit }),
      }),
    );

/**
 * Mounts `endpoints` with each adapter's `securityRoutes`: on node `http` (404 behind
 * `next()`), straight into the Fetch handler (404 for `undefined`), or on Fastify.
 */
export async function mount(kind: AdapterKind, endpoints: TokenEndpoints): Promise<Harness> {
  if (kind === 'node') {
    const routes = nodeRoutes(endpoints);
    const server = await listen(
      createServer((req, res) => {
        routes(req, res, () => res.writeHead(404).end('Not Found'));
      }),
    );
    return { origin: server.origin, send: overHttp(server.origin), close: () => server.close() };
  }
  if (kind === 'fetch') {
    const routes = fetchRoutes(endpoints);
    return {
      origin: undefined,
      send: async (path, options = {}) => {
        const response = await routes(
          new Request(`http://127.0.0.1${path}`, {
            method: options.method ?? 'POST',
            headers: options.headers ?? {},
            ...(options.body === undefined ? {} : { body: options.body as BodyInit }),
          }),
        );
        return response === undefined
          ? { status: 404, headers: {}, body: 'Not Found' }
          : replyOf(response);
      },
      close: () => Promise.resolve(),
    };
  }
  const app = Fastify();
  await app.register(fastifyRoutes, { routes: [endpoints] });
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  return { origin, send: overHttp(origin), close: () => app.close() };
}

/** A JSON POST. */
export function json(body: unknown): SendOptions {
  return {
    headers: { 'content-type': JSON_TYPE },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

/** A form POST. */
export function form(fields: Record<string, string>): SendOptions {
  return { headers: { 'content-type': FORM_TYPE }, body: new URLSearchParams(fields).toString() };
}

/** The parsed JSON body of a reply. */
export function bodyOf(reply: Reply): Record<string, unknown> {
  return JSON.parse(reply.body) as Record<string, unknown>;
}

/** The token response of a reply. */
export function tokensOf(reply: Reply): TokenBody {
  return JSON.parse(reply.body) as TokenBody;
}

/** The token response of a successful login. */
export interface TokenBody {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly refresh_expires_in: number;
}
