/** The HTTP side of the routes tests: both adapter styles, a browser's cookie jar. */
import Fastify from 'fastify';
import { createSecurityRequest, type SecurityRoutes } from '../../src/index.js';
import { securityRoutes as fastifyRoutes } from '../../src/fastify/index.js';
import { securityRoutes as fetchRoutes } from '../../src/fetch/index.js';
import { securityRoutes as nodeRoutes } from '../../src/node/index.js';
import type { SessionAuthenticator } from '../../src/session/index.js';
import { listen, nodeClientRequest, type TestServer } from '../support/server.js';
/** An answer, whichever adapter style sent it; `undefined` status 0 when not handled. */
export interface Reply {
  readonly handled: boolean;
  readonly status: number;
  readonly location: string | undefined;
  readonly setCookies: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Sends requests to the routes through one adapter. */
export interface Harness {
  readonly kind: (typeof HARNESS_KINDS)[number];
  send(
    target: string,
    init?: { readonly method?: string; readonly cookie?: string },
  ): Promise<Reply>;
  close(): Promise<void>;
}

/** The adapters every routes test runs under. */
export const HARNESS_KINDS = ['node', 'fetch', 'fastify'] as const;

/** The harness of one adapter: {@link nodeHarness}, {@link fetchHarness} or {@link fastifyHarness}. */
export async function harnessOf(kind: Harness['kind'], login: SecurityRoutes): Promise<Harness> {
  if (kind === 'node') return nodeHarness(login);
  if (kind === 'fetch') return fetchHarness(login);
  return fastifyHarness(login);
}

/**
 * A node server on 127.0.0.1: the routes mounted with `portcullis/node`'s
 * `securityRoutes`, else 418 (the "next" handler).
 */
export async function nodeHarness(login: SecurityRoutes): Promise<Harness> {
  const routes = nodeRoutes(login);
  const server: TestServer = await listen((req, res) => {
    routes(req, res, () => {
      res.writeHead(418).end();
    });
  });
  return { kind: 'node', close: () => server.close(), send: overHttp(server.origin) };
}

/**
 * A Fastify server on 127.0.0.1: the routes registered with `portcullis/fastify`'s
 * `securityRoutes`, the application's not-found handler 418.
 */
export async function fastifyHarness(login: SecurityRoutes): Promise<Harness> {
  const app = Fastify();
  app.setNotFoundHandler((_request, reply) => reply.code(418).send());
  await app.register(fastifyRoutes, { routes: [login] });
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  return { kind: 'fastify', close: () => app.close(), send: overHttp(origin) };
}

/** Sends with node's client (which keeps every `Set-Cookie` line apart); 418 is "not handled". */
function overHttp(origin: string): Harness['send'] {
  return async (target, init = {}) => {
    const response = await nodeClientRequest(`${origin}${target}`, {
      method: init.method ?? 'GET',
      headers: init.cookie === undefined ? {} : { cookie: init.cookie },
    });
    return { handled: response.status !== 418, ...response };
  };
}

/**
 * The routes mounted with `portcullis/fetch`'s `securityRoutes`, with `Request`s to
 * `https://app.example`.
 */
export function fetchHarness(login: SecurityRoutes): Harness {
  const routes = fetchRoutes(login);
  return {
    kind: 'fetch',
    close: () => Promise.resolve(),
    send: async (target, init = {}) => {
      const response = await routes(
        new Request(`https://app.example${target}`, {
          method: init.method ?? 'GET',
          headers: init.cookie === undefined ? {} : { cookie: init.cookie },
        }),
      );
      if (response === undefined) {
        return {
          handled: false,
          status: 0,
          location: undefined,
          setCookies: [],
          headers: {},
          body: '',
        };
      }
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (name !== 'set-cookie') headers[name] = value;
      });
      return {
        handled: true,
        status: response.status,
        location: response.headers.get('location') ?? undefined,
        setCookies: response.headers.getSetCookie(),
        headers,
        body: await response.text(),
      };
    },
  };
}

/** A browser's cookies: `Set-Cookie` values applied in order (`Max-Age=0` deletes). */
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  apply(setCookies: readonly string[]): this {
    for (const setCookie of setCookies) {
      const pair = setCookie.split(';', 1)[0] ?? '';
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      if (/;\s*Max-Age=0(?:;|$)/iu.test(setCookie)) this.#cookies.delete(name);
      else this.#cookies.set(name, pair.slice(eq + 1));
    }
    return this;
  }

  get(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  /** A copy (another browser, or an attacker's copy of this one's cookies). */
  copy(): CookieJar {
    const jar = new CookieJar();
    for (const [name, value] of this.#cookies) jar.#cookies.set(name, value);
    return jar;
  }

  get header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** The Set-Cookie value of one cookie in a reply. */
export function setCookieOf(reply: Reply, name: string): string | undefined {
  return reply.setCookies.find((c) => c.startsWith(`${name}=`));
}

/** Starts a login in the browser `jar`; the state is read off the provider URL. */
export async function startLogin(
  harness: Harness,
  jar: CookieJar,
  registrationId = 'google',
  query = '',
): Promise<{ reply: Reply; state: string }> {
  const reply = await harness.send(`/oauth2/authorization/${registrationId}${query}`, {
    cookie: jar.header,
  });
  jar.apply(reply.setCookies);
  const state =
    reply.location === undefined
      ? ''
      : new URL(reply.location, 'https://app.example').searchParams.get('state');
  return { reply, state: state ?? '' };
}

/** The provider's redirect back to the callback, in the browser `jar`. */
export async function callback(
  harness: Harness,
  jar: CookieJar,
  registrationId: string,
  query: string,
): Promise<Reply> {
  const reply = await harness.send(`/login/oauth2/code/${registrationId}?${query}`, {
    cookie: jar.header,
  });
  jar.apply(reply.setCookies);
  return reply;
}

/** The username of the session in `jar`, or `null`. */
export async function sessionUser(
  sessions: SessionAuthenticator,
  jar: CookieJar,
): Promise<string | null> {
  const cookie = jar.header;
  const user = await sessions.authenticate(
    createSecurityRequest({
      method: 'GET',
      url: '/',
      header: (name) => (name === 'cookie' ? cookie : undefined),
    }),
  );
  return user?.username ?? null;
}
