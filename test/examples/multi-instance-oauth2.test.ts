/**
 * An OAuth2 login callback replayed on another instance, at the route level: two
 * `oauth2Login` handlers (instances A and B, each its own server, Redis connection
 * and stores) against the example's development OpenID provider (oidc-provider on
 * 127.0.0.1), sharing a real `redis-server`. A's login succeeds; the same callback
 * with a copy of the transaction cookie, replayed at B, is refused before B calls
 * the provider. With B on its own in-memory spent store (the control) the replay
 * reaches the provider's token endpoint, where only the provider's one-time code
 * stops it.
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevProvider, type DevProvider } from '../../examples/oauth2-dev-provider.js';
import { DEMO_USERS } from '../../examples/app.js';
import { devProviderAccounts } from '../../examples/session-site.js';
import { User } from '../../src/index.js';
import { securityRoutes } from '../../src/node/index.js';
import {
  OAuth2ClientRepository,
  OAuth2Config,
  OAuth2Provider,
  oauth2Login,
  type OAuth2Error,
} from '../../src/oauth2/index.js';
import { connectRedis, createRedisStores, type RedisStores } from '../../src/redis/index.js';
import { SessionAuthenticator, SessionConfig } from '../../src/session/index.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { listen, type TestServer } from '../support/server.js';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const PASSWORD = 'a-session-password-shared-by-every-instance-0123';

/** Cookies as a browser keeps them for 127.0.0.1 (every port). */
class Jar {
  readonly cookies = new Map<string, string>();

  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(5000),
      headers: { ...(init.headers as Record<string, string> | undefined), cookie },
    });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';', 1)[0] ?? '';
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1);
      if (value === '' || /Max-Age=0/iu.test(line)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), value);
    }
    return response;
  }
}

interface Site {
  readonly server: TestServer;
  /** The codes of the failures seen by the site's `onFailure`. */
  readonly failures: string[];
}

let redis: TestRedis;
let provider: DevProvider;
const closers: (() => Promise<void> | void)[] = [];
let a: Site;
let b: Site;
let control: Site;

/**
 * An instance on `node` (listening already, or started here): its own Redis
 * connection and stores, or (`memory`) the in-memory defaults.
 */
async function site(
  redirectUri: string,
  memory: boolean,
  node = createServer(),
  listening?: TestServer,
): Promise<Site> {
  const server = listening ?? (await listen(node));
  closers.push(() => server.close());
  let stores: RedisStores | undefined;
  if (!memory) {
    const client = await connectRedis(redis.url);
    stores = createRedisStores({ client, prefix: 'portcullis:' });
    const shared = stores;
    closers.push(async () => {
      shared.close();
      await client.close();
    });
  }
  const sessions = new SessionAuthenticator(
    new SessionConfig().passwords(PASSWORD).dangerouslyAllowInsecureCookie(),
    stores === undefined ? {} : { store: stores.sessions },
  );
  const config = new OAuth2Config(provider.clientId, provider.clientSecret, redirectUri)
    .provider(OAuth2Provider.oidc({ issuer: provider.issuer, name: 'local' }))
    .authorizationParams({ prompt: 'login' });
  const failures: string[] = [];
  const login = oauth2Login({
    repository: await OAuth2ClientRepository.create([config]),
    sessions,
    defaultTarget: '/me',
    mapper: (user) => new User(user.subject, '', ['USER']),
    onFailure: (error: OAuth2Error) => failures.push(error.code),
    ...(stores === undefined ? {} : { spentTransactions: stores.spentIds }),
  });
  const routes = securityRoutes(login);
  node.on('request', (req, res) => {
    routes(req, res, () => res.writeHead(404).end());
  });
  return { server, failures };
}

beforeAll(async () => {
  redis = await startRedis();
  // The redirect URI names A's port: A listens before the provider starts.
  const nodeA = createServer();
  const serverA = await listen(nodeA);
  const redirectUri = `${serverA.origin}/login/oauth2/code/local`;
  provider = await startDevProvider({ redirectUri, accounts: devProviderAccounts(DEMO_USERS) });
  closers.push(() => provider.close());
  a = await site(redirectUri, false, nodeA, serverA);
  b = await site(redirectUri, false);
  control = await site(redirectUri, true);
}, 30_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await redis.stop();
});

/** From the site's authorization route through the provider's login to the callback URL. */
async function logInAtProvider(app: Jar, at: Site, username: string): Promise<URL> {
  const start = await app.fetch(`${at.server.origin}/oauth2/authorization/local`, {
    headers: { accept: HTML },
  });
  expect(start.status).toBe(302);
  const browser = new Jar();
  let url = new URL(start.headers.get('location') ?? '');
  let response = await browser.fetch(url, { headers: { accept: HTML } });
  for (let hop = 0; hop < 5 && response.status === 303; hop++) {
    url = new URL(response.headers.get('location') ?? '', url);
    response = await browser.fetch(url, { headers: { accept: HTML } });
  }
  expect(response.status).toBe(200);
  const action = /<form method="post" action="([^"]+\/login)"/u.exec(await response.text())?.[1];
  url = new URL(action ?? '', url);
  response = await browser.fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: provider.issuer,
      'sec-fetch-site': 'same-origin',
    },
    body: new URLSearchParams({ username, password: `${username}-password` }).toString(),
  });
  for (let hop = 0; hop < 10; hop++) {
    expect(response.status).toBe(303);
    url = new URL(response.headers.get('location') ?? '', url);
    if (url.origin !== provider.issuer) return url;
    response = await browser.fetch(url, { headers: { accept: HTML } });
  }
  throw new Error('too many redirects at the provider');
}

/** The callback's path and query, at another instance. */
const at = (instance: Site, callback: URL): string =>
  `${instance.server.origin}${callback.pathname}${callback.search}`;

describe('an OAuth2 callback replayed on another instance', () => {
  it('is refused by B (the transaction spent on A, in Redis) before B calls the provider', async () => {
    const app = new Jar();
    const callback = await logInAtProvider(app, a, 'user');
    const copy = app.cookies.get('oauth2') ?? '';
    expect(copy).not.toBe('');
    const done = await app.fetch(callback, { headers: { accept: HTML } });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/me');
    expect(app.cookies.has('session')).toBe(true);

    const attacker = new Jar();
    attacker.cookies.set('oauth2', copy);
    const replay = await attacker.fetch(at(b, callback), { headers: { accept: HTML } });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toMatch(/^\/login\?error/u);
    expect(attacker.cookies.has('session')).toBe(false);
    expect(b.failures).toEqual(['ERR_OAUTH2_TRANSACTION']);
  });

  it('control: an instance with its own in-memory spent store lets the replay reach the provider', async () => {
    const app = new Jar();
    const callback = await logInAtProvider(app, a, 'writer');
    const copy = app.cookies.get('oauth2') ?? '';
    expect((await app.fetch(callback)).status).toBe(303);

    const attacker = new Jar();
    attacker.cookies.set('oauth2', copy);
    const replay = await attacker.fetch(at(control, callback));
    expect(replay.status).toBe(303);
    expect(attacker.cookies.has('session')).toBe(false);
    // Not stopped as a spent transaction: only the provider's one-time code refused it.
    expect(control.failures).toEqual(['ERR_OAUTH2_TOKEN_EXCHANGE']);
  });
});
