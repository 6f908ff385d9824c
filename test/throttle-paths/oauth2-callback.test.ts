/**
 * The OAuth2 callback under its throttle (counted by client address): failed
 * callbacks stay counted, logins are taken back; past the limit a browser goes to
 * `/login?error=throttled` and another client gets 429, before the transaction
 * cookie is opened or the provider asked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SecurityRoutes } from '../../src/index.js';
import Fastify from 'fastify';
import { securityRoutes as fastifyRoutes } from '../../src/fastify/index.js';
import { securityRoutes as fetchRoutes } from '../../src/fetch/index.js';
import { securityRoutes as nodeRoutes } from '../../src/node/index.js';
import { LoginThrottle } from '../../src/throttle/index.js';
import {
  callback,
  CookieJar,
  GOOD_CODE,
  makeFixture,
  sessionUser,
  startLogin,
  type Fixture,
  type Harness,
  type Reply,
} from '../oauth2/routes-support.js';
import type { SecurityEvent } from '../../src/index.js';
import { recordEvents } from '../support/events.js';
import { listen } from '../support/server.js';
import { MINUTE, testClock, throttledScopes, type TestClock } from './support.js';

const BROWSER = 'text/html,application/xhtml+xml,*/*;q=0.8';

/** What the client sends besides the cookie: its Accept header (`null`: none) and, to the Fetch handler, its address. */
interface Client {
  accept: string | null;
  address: string;
}

async function replyOf(response: Response, handled = true): Promise<Reply> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  return {
    handled,
    status: response.status,
    location: response.headers.get('location') ?? undefined,
    setCookies: response.headers.getSetCookie(),
    headers,
    body: await response.text(),
  };
}

/**
 * The routes over node `http` or Fastify (the socket's address), or mounted with the
 * Fetch adapter (`client.address`).
 */
async function harnessOf(
  kind: 'node' | 'fetch' | 'fastify',
  login: SecurityRoutes,
  client: Client,
): Promise<Harness> {
  const headersOf = (cookie: string | undefined): Record<string, string> => ({
    ...(cookie === undefined ? {} : { cookie }),
    ...(client.accept === null ? {} : { accept: client.accept }),
  });
  if (kind === 'fetch') {
    const routes = fetchRoutes(login);
    return {
      kind,
      close: () => Promise.resolve(),
      send: async (target, init = {}) => {
        const response = await routes(
          new Request(`https://app.example${target}`, { headers: headersOf(init.cookie) }),
          client.address,
        );
        if (response === undefined) throw new Error(`no route for ${target}`);
        return replyOf(response);
      },
    };
  }
  let server: { origin: string; close: () => Promise<void> };
  if (kind === 'node') {
    const routes = nodeRoutes(login);
    server = await listen((req, res) => {
      routes(req, res, () => res.writeHead(418).end());
    });
  } else {
    const app = Fastify();
    await app.register(fastifyRoutes, { routes: [login] });
    server = { origin: await app.listen({ port: 0, host: '127.0.0.1' }), close: () => app.close() };
  }
  return {
    kind,
    close: () => server.close(),
    send: async (target, init = {}) =>
      replyOf(
        await fetch(`${server.origin}${target}`, {
          headers: headersOf(init.cookie),
          redirect: 'manual',
        }),
      ),
  };
}

describe.each(['node', 'fetch', 'fastify'] as const)(
  'oauth2Login callback throttle (%s)',
  (kind) => {
    let fixture: Fixture;
    let harness: Harness;
    let clock: TestClock;
    /** The events of the throttle. */
    let throttleEvents: SecurityEvent[];
    const client: Client = { accept: BROWSER, address: '198.51.100.40' };
    const opened: Harness[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((h) => h.close()));
      client.accept = BROWSER;
    });

    const open = async (throttle?: LoginThrottle): Promise<void> => {
      clock = testClock();
      const { events, received } = recordEvents();
      throttleEvents = received;
      fixture = makeFixture({
        throttle:
          throttle ??
          new LoginThrottle({ clock: clock.now, events, username: false, address: { max: 3 } }),
      });
      harness = await harnessOf(kind, fixture.login, client);
      opened.push(harness);
    };

    /** A whole login in a fresh browser: its callback's reply. */
    const login = async (code = GOOD_CODE): Promise<Reply> => {
      const jar = new CookieJar();
      const { state } = await startLogin(harness, jar, 'google', '?continue=/me');
      return callback(harness, jar, 'google', `code=${code}&state=${state}`);
    };

    const expectThrottled = (reply: Reply): void => {
      expect(reply.status).toBe(303);
      expect(reply.location).toBe('/login?error=throttled');
      expect(reply.setCookies).toEqual([]);
      expect(throttledScopes(throttleEvents)).toEqual(['address']);
    };

    it('failed callbacks (a refused code, a bad state, no transaction) count; past the limit the browser goes to ?error=throttled, the provider never asked', async () => {
      await open();
      expect((await login('wrong-code')).location).toBe('/login?error=oauth2&continue=%2Fme');
      const jar = new CookieJar();
      const { state } = await startLogin(harness, jar);
      expect(
        (await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=x${state}`)).location,
      ).toBe('/login?error=oauth2');
      expect(
        (await callback(harness, new CookieJar(), 'google', `code=${GOOD_CODE}&state=s`)).location,
      ).toBe('/login?error=oauth2');
      const asked = fixture.google.calls.length;
      expectThrottled(await login());
      expect(fixture.google.calls.length).toBe(asked);
    });

    it('a replayed transaction counts as a failure', async () => {
      await open();
      const jar = new CookieJar();
      const { state } = await startLogin(harness, jar);
      const copy = jar.header;
      expect(
        (await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`)).location,
      ).toBe('/');
      for (let i = 0; i < 3; i++) {
        const replay = await harness.send(
          `/login/oauth2/code/google?code=${GOOD_CODE}&state=${state}`,
          {
            cookie: copy,
          },
        );
        expect(replay.location).toBe('/login?error=oauth2');
      }
      expectThrottled(await login());
    });

    it('another client than a browser gets 429 with Retry-After; after the delay a login goes through', async () => {
      await open();
      for (let i = 0; i < 3; i++) await login('wrong-code');
      client.accept = null;
      const reply = await login();
      expect(reply.status).toBe(429);
      expect(reply.headers['retry-after']).toBe('60');
      client.accept = BROWSER;
      clock.advance(MINUTE);
      const jar = new CookieJar();
      const { state } = await startLogin(harness, jar, 'google', '?continue=/me');
      const ok = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
      expect(ok.location).toBe('/me');
      expect(await sessionUser(fixture.sessions, jar)).toBe('google:google-subject');
    });

    it('a login takes its attempt back: logins after two failures are never throttled', async () => {
      await open();
      for (let i = 0; i < 2; i++) await login('wrong-code');
      for (let i = 0; i < 6; i++) expect((await login()).location).toBe('/me');
      expect((await login('wrong-code')).location).toBe('/login?error=oauth2&continue=%2Fme');
      expectThrottled(await login());
    });

    it('on by default: 100 failed callbacks from one address, then refused', async () => {
      await open(new LoginThrottle({ clock: testClock().now, username: false }));
      const failing = () => harness.send(`/login/oauth2/code/google?code=${GOOD_CODE}&state=s`, {});
      for (let i = 0; i < 100; i++) expect((await failing()).location).toBe('/login?error=oauth2');
      expect((await failing()).location).toBe('/login?error=throttled');
    });

    it('throttle: false counts nothing', async () => {
      clock = testClock();
      fixture = makeFixture({ throttle: false });
      harness = await harnessOf(kind, fixture.login, client);
      opened.push(harness);
      for (let i = 0; i < 120; i++) {
        const reply = await harness.send(`/login/oauth2/code/google?code=x&state=s`, {});
        expect(reply.location).toBe('/login?error=oauth2');
      }
    });
  },
);
