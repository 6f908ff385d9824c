import Fastify from 'fastify';
import {
  AuthenticationManager,
  createSecurityRequest,
  DelegatingPasswordEncoder,
  NoOpPasswordEncoder,
  SecurityEvents,
  User,
  type MemoryAuthenticator,
  type SecurityEvent,
  type SecurityRequest,
  type SecurityRoutes,
} from '../../src/index.js';
import { securityRoutes as fastifyRoutes } from '../../src/fastify/index.js';
import { securityRoutes as fetchRoutes } from '../../src/fetch/index.js';
import { securityRoutes as nodeRoutes } from '../../src/node/index.js';
import { csrfKeys, tokenFor } from '../../src/session/csrf.js';
import {
  SessionAuthenticator,
  SessionConfig,
  type SessionAuthenticatorOptions,
  type SessionConfigOptions,
} from '../../src/session/index.js';
import { listen, nodeClientRequest, type TestServer } from '../support/server.js';

import { NOW, testClock, type TestClock } from '../support/clock.js';

export { NOW, testClock, type TestClock };

/** Two iron passwords of 32+ characters. */
export const PASSWORD_1 = 'password-one-for-the-session-tests-0123456789';
export const PASSWORD_2 = 'password-two-for-the-session-tests-9876543210';

import { recordEvents } from '../support/events.js';

export { recordEvents };

/** A session authenticator on a manual clock with recorded events. */
export interface SessionsFixture {
  readonly sessions: SessionAuthenticator;
  readonly clock: TestClock;
  readonly events: SecurityEvents;
  readonly received: SecurityEvent[];
}

/** Sessions with password 1 (unless configured otherwise) on a manual clock. */
export function makeSessions(
  config: SessionConfigOptions = {},
  options: Omit<SessionAuthenticatorOptions, 'events' | 'clock'> & { clock?: TestClock } = {},
): SessionsFixture {
  const { clock = testClock(), ...rest } = options;
  const { events, received } = recordEvents();
  const sessions = new SessionAuthenticator(
    new SessionConfig({ passwords: PASSWORD_1, ...config }),
    { ...rest, events, clock: clock.now },
  );
  return { sessions, clock, events, received };
}

/** What a test request carries. */
export interface RequestInit {
  readonly method?: string;
  readonly url?: string;
  /** A `Set-Cookie` value (or a `name=value` pair) sent back as the `Cookie` header. */
  readonly cookie?: string | undefined;
  readonly headers?: Readonly<Record<string, string>>;
  readonly secure?: boolean;
}

/** A {@link SecurityRequest} to `http://app.example` (Host header set) unless told otherwise. */
export function request(init: RequestInit = {}): SecurityRequest {
  const headers: Record<string, string> = { host: 'app.example' };
  for (const [name, value] of Object.entries(init.headers ?? {}))
    headers[name.toLowerCase()] = value;
  if (init.cookie !== undefined) headers['cookie'] = cookiePair(init.cookie);
  return createSecurityRequest({
    method: init.method ?? 'GET',
    url: init.url ?? '/',
    header: (name) => headers[name],
    clientAddress: '127.0.0.1',
    secure: init.secure ?? false,
  });
}

/** The `name=value` pair of a `Set-Cookie` value. */
export function cookiePair(setCookie: string): string {
  return setCookie.split(';', 1)[0] ?? '';
}

/** The value of a `Set-Cookie` (or `name=value`) string. */
export function cookieValue(setCookie: string): string {
  const pair = cookiePair(setCookie);
  return pair.slice(pair.indexOf('=') + 1);
}

/** The attributes of a `Set-Cookie` value, lower-cased names. */
export function cookieAttributes(setCookie: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const part of setCookie.split(';').slice(1)) {
    const [name = '', ...value] = part.trim().split('=');
    attributes.set(name.toLowerCase(), value.join('='));
  }
  return attributes;
}

/** The users of the form tests: password `<name>-pw`. */
export const ALICE = new User('alice', '{noop}alice-pw').withRoles(['USER']);
export const MALLORY = new User('mallory', '{noop}mallory-pw').withRoles(['USER']);
export const ADMIN = new User('root', '{noop}root-pw')
  .withRoles(['ADMIN', 'USER'])
  .withAuthorities(['users:write']);

/** An in-memory store of {@link ALICE}, {@link MALLORY} and {@link ADMIN}, publishing to `events`. */
export function userStore(events: SecurityEvents): MemoryAuthenticator {
  const encoder = new DelegatingPasswordEncoder()
    .withEncoder('noop', new NoOpPasswordEncoder())
    .defaultEncoder('noop');
  return AuthenticationManager.inMemoryAuthentication({ events, cache: false })
    .passwordEncoder(encoder)
    .withUser(ALICE)
    .withUser(MALLORY)
    .withUser(ADMIN);
}

/** An `application/x-www-form-urlencoded` body. */
export function form(fields: Readonly<Record<string, string>>): string {
  return new URLSearchParams(fields).toString();
}

/** A CSRF token for `sid` made with `password` under password id `id` (rotation tests). */
export function csrfTokenWith(
  passwords: Readonly<Record<string, string>>,
  id: string,
  sid: string,
): string {
  return tokenFor(csrfKeys(new SessionConfig({ passwords }).resolve()), id, sid);
}

/** The error a function throws. */
export function thrown(fn: () => unknown): { code?: string; option?: string } {
  try {
    fn();
  } catch (error) {
    return error as { code?: string; option?: string };
  }
  throw new Error('expected an error');
}

/** An answer of a form handler, whichever adapter style ran it. */
export interface Reply {
  readonly status: number;
  readonly location: string | undefined;
  readonly setCookies: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The adapters the form routes are mounted on. */
export type HarnessKind = 'node' | 'fetch' | 'fastify';

/** Every adapter the form tests run under. */
export const HARNESS_KINDS: readonly HarnessKind[] = ['node', 'fetch', 'fastify'];

/** The application's own `GET /login` page, behind the routes. */
export const APP_PAGE = 'the application';

/** The application's answer to anything else the routes pass on: 404. */
const NOT_FOUND = 'no such page';

/** Posts to the login and logout routes through one adapter. */
export interface Harness {
  readonly kind: HarnessKind;
  /** The application's own origin (Host + scheme) as the handlers see it. */
  readonly origin: string;
  send(
    path: string,
    init: {
      readonly method?: string;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body?: string;
    },
  ): Promise<Reply>;
  close(): Promise<void>;
}

/**
 * The harness of one adapter: the routes mounted with its `securityRoutes`, and the
 * application behind them ({@link APP_PAGE} for `GET /login`, 404 for the rest).
 */
export async function harnessOf(
  kind: HarnessKind,
  login: SecurityRoutes,
  logout: SecurityRoutes,
): Promise<Harness> {
  if (kind === 'node') return nodeHarness(login, logout);
  if (kind === 'fetch') return fetchHarness(login, logout);
  return fastifyHarness(login, logout);
}

/**
 * A real node server on 127.0.0.1: the routes mounted with `portcullis/node`'s
 * `securityRoutes`, the application ({@link APP_PAGE}, 200) behind `next()`.
 */
export async function nodeHarness(login: SecurityRoutes, logout: SecurityRoutes): Promise<Harness> {
  const routes = nodeRoutes(login, logout);
  const server: TestServer = await listen((req, res) => {
    routes(req, res, () => {
      if (req.method === 'GET' && req.url === '/login') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(APP_PAGE);
      } else res.writeHead(404, { 'content-type': 'text/plain' }).end(NOT_FOUND);
    });
  });
  return {
    kind: 'node',
    origin: server.origin,
    close: () => server.close(),
    send: overHttp(server.origin),
  };
}

/**
 * A Fastify server on 127.0.0.1: the routes registered with `portcullis/fastify`'s
 * `securityRoutes`, the application's own `GET /login` page ({@link APP_PAGE}).
 */
export async function fastifyHarness(
  login: SecurityRoutes,
  logout: SecurityRoutes,
): Promise<Harness> {
  const app = Fastify();
  app.setNotFoundHandler((_request, reply) => reply.code(404).type('text/plain').send(NOT_FOUND));
  await app.register(fastifyRoutes, { routes: [login, logout] });
  app.get('/login', (_request, reply) => reply.type('text/plain').send(APP_PAGE));
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  return { kind: 'fastify', origin, close: () => app.close(), send: overHttp(origin) };
}

/** Sends with node's client (which keeps every `Set-Cookie` line apart). */
function overHttp(origin: string): Harness['send'] {
  return (path, init) =>
    nodeClientRequest(`${origin}${path}`, {
      method: init.method ?? 'POST',
      headers: init.headers ?? {},
      ...(init.body === undefined ? {} : { body: init.body }),
    });
}

/**
 * The routes mounted with `portcullis/fetch`'s `securityRoutes`, called with a
 * `Request` to `http://app.example`; the application ({@link APP_PAGE}) when they
 * pass it on.
 */
export function fetchHarness(
  login: SecurityRoutes,
  logout: SecurityRoutes,
  /** The client address the runtime tells, read at each request. */
  clientAddress: () => string | undefined = () => undefined,
): Harness {
  const origin = 'http://app.example';
  const routes = fetchRoutes(login, logout);
  return {
    kind: 'fetch',
    origin,
    close: () => Promise.resolve(),
    send: async (path, init) => {
      const method = init.method ?? 'POST';
      const response =
        (await routes(
          new Request(`${origin}${path}`, {
            method,
            headers: init.headers ?? {},
            ...(method === 'GET' || method === 'HEAD' ? {} : { body: init.body ?? '' }),
          }),
          clientAddress(),
        )) ??
        (method === 'GET' && path === '/login'
          ? new Response(APP_PAGE, { status: 200 })
          : new Response(NOT_FOUND, { status: 404 }));
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (name !== 'set-cookie') headers[name] = value;
      });
      return {
        status: response.status,
        location: response.headers.get('location') ?? undefined,
        setCookies: response.headers.getSetCookie(),
        headers,
        body: await response.text(),
      };
    },
  };
}

/**
 * The answer of `routes` mounted with `portcullis/fetch`'s `securityRoutes` (a
 * failure when they pass the request on).
 */
export async function answer(
  routes: SecurityRoutes,
  request: Request,
  clientAddress?: string,
): Promise<Response> {
  const response = await fetchRoutes(routes)(request, clientAddress);
  if (response === undefined) throw new Error(`the routes passed ${request.url} on`);
  return response;
}
