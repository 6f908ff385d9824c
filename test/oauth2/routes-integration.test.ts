/**
 * The login routes against a real OpenID Provider (oidc-provider on 127.0.0.1): the
 * whole flow over HTTP, then the attacks that concern the routes, each refused with no
 * session created.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { securityRoutes as fastifyRoutes } from '../../src/fastify/index.js';
import { securityRoutes as nodeRoutes } from '../../src/node/index.js';
import { SecurityEvents, User, type SecurityEvent } from '../../src/index.js';
import { OAuth2Client } from '../../src/oauth2/client.js';
import { OAuth2Config } from '../../src/oauth2/config.js';
import { OAuth2Provider } from '../../src/oauth2/providers.js';
import { OAuth2ClientRepository } from '../../src/oauth2/repository.js';
import { oauth2Login } from '../../src/oauth2/index.js';
import type { SecurityRoutes } from '../../src/index.js';
import type { OAuth2MapperContext } from '../../src/oauth2/routes/options.js';
import type { OAuth2User } from '../../src/oauth2/types.js';
import { SessionAuthenticator, SessionConfig } from '../../src/session/index.js';
import { listen, type TestServer } from '../support/server.js';
import {
  startProviderHarness,
  TEST_CLIENT_ID,
  TEST_CLIENT_SECRET,
  type ProviderHarness,
} from './provider-harness.js';
import { CookieJar, PASSWORD, sessionUser } from './routes-support.js';

const TX = '__Host-oauth2';
const LOGIN_ERROR = '/login?error=oauth2';

interface Reply {
  readonly status: number;
  readonly location: string | undefined;
  readonly setCookies: readonly string[];
  readonly body: string;
}

/** The routes mounted on one adapter over HTTP on 127.0.0.1; 404 for anything else. */
const ADAPTERS: [string, (routes: SecurityRoutes) => Promise<TestServer>][] = [
  [
    'node securityRoutes',
    (routes) => {
      const middleware = nodeRoutes(routes);
      return listen((req, res) => {
        middleware(req, res, () => res.writeHead(404).end());
      });
    },
  ],
  [
    'Fastify securityRoutes',
    async (routes) => {
      const app = Fastify();
      await app.register(fastifyRoutes, { routes: [routes] });
      const origin = await app.listen({ port: 0, host: '127.0.0.1' });
      return { origin, close: () => app.close() };
    },
  ],
];

describe.each(ADAPTERS)('oauth2Login against oidc-provider (%s)', (_name, start) => {
  let app: TestServer;
  let local: ProviderHarness;
  let other: ProviderHarness;
  let sessions: SessionAuthenticator;
  let received: SecurityEvent[];
  let failures: string[];
  let mapped: { user: OAuth2User; context: OAuth2MapperContext }[];
  let login: SecurityRoutes | undefined;
  let repository: OAuth2ClientRepository<OAuth2Client>;

  beforeAll(async () => {
    // The redirect URIs name the app's origin: it listens before the routes exist.
    app = await start({
      paths: ['/oauth2/authorization/{registrationId}', '/login/oauth2/code/{registrationId}'],
      handle: (request, readBody) =>
        login === undefined
          ? Promise.resolve({ status: 503, headers: {}, body: '' })
          : login.handle(request, readBody),
    });
    const redirect = (id: string): string => `${app.origin}/login/oauth2/code/${id}`;
    [local, other] = await Promise.all([
      startProviderHarness({ clients: [{ redirectUris: [redirect('local')] }] }),
      startProviderHarness({ clients: [{ redirectUris: [redirect('other')] }] }),
    ]);
    const config = (id: string, op: ProviderHarness): OAuth2Config =>
      new OAuth2Config(TEST_CLIENT_ID, TEST_CLIENT_SECRET, redirect(id))
        .provider(OAuth2Provider.oidc({ issuer: op.issuer, name: id }))
        .registrationId(id);
    repository = await OAuth2ClientRepository.create([
      config('local', local),
      config('other', other),
    ]);
    expect([...repository].every((c) => c instanceof OAuth2Client)).toBe(true);

    const events = new SecurityEvents();
    received = [];
    events.on('*', (event) => {
      received.push(event);
    });
    failures = [];
    mapped = [];
    sessions = new SessionAuthenticator(new SessionConfig({ passwords: PASSWORD }), { events });
    login = oauth2Login({
      repository,
      sessions,
      events,
      onFailure: (error) => failures.push(error.code),
      mapper: (user, context) => {
        mapped.push({ user, context });
        return new User(`${user.provider}:${user.subject}`, '', ['USER']);
      },
    });
  });

  afterAll(async () => {
    await Promise.all([app.close(), local.close(), other.close()]);
  });

  beforeEach(() => {
    local.reset();
    other.reset();
  });

  async function get(target: string, jar: CookieJar): Promise<Reply> {
    const response = await fetch(new URL(target, app.origin), {
      redirect: 'manual',
      headers: { cookie: jar.header },
      signal: AbortSignal.timeout(5000),
    });
    const reply = {
      status: response.status,
      location: response.headers.get('location') ?? undefined,
      setCookies: response.headers.getSetCookie(),
      body: await response.text(),
    };
    jar.apply(reply.setCookies);
    return reply;
  }

  /** Starts a login in `jar` and goes through the provider: the callback URL it redirects to. */
  async function throughProvider(
    jar: CookieJar,
    id = 'local',
    options: { continue?: string; subject?: string; decision?: 'allow' | 'deny' } = {},
  ): Promise<URL> {
    const query =
      options.continue === undefined ? '' : `?continue=${encodeURIComponent(options.continue)}`;
    const start = await get(`/oauth2/authorization/${id}${query}`, jar);
    expect(start.status).toBe(302);
    const op = id === 'local' ? local : other;
    return op.login(start.location ?? '', {
      subject: options.subject ?? 'alice',
      decision: options.decision ?? 'allow',
    });
  }

  /** The browser following the provider's redirect. */
  function follow(callback: URL, jar: CookieJar): Promise<Reply> {
    return get(`${callback.pathname}${callback.search}`, jar);
  }

  async function expectRefused(reply: Reply, jar: CookieJar, code: string): Promise<void> {
    expect(reply.status).toBe(303);
    expect(reply.location).toBe(LOGIN_ERROR);
    expect(reply.body).toBe('');
    expect(reply.setCookies.some((c) => c.startsWith('__Host-session='))).toBe(false);
    expect(await sessionUser(sessions, jar)).toBeNull();
    expect(failures.at(-1)).toBe(code);
  }

  it('the full code flow: PKCE, state, nonce; a fresh session; back to the saved target', async () => {
    const jar = new CookieJar();
    const before = received.length;
    const callback = await throughProvider(jar, 'local', { continue: '/me?tab=1' });
    expect(callback.origin).toBe(app.origin);
    expect(callback.searchParams.get('iss')).toBe(local.issuer);
    const reply = await follow(callback, jar);
    expect(reply.status).toBe(303);
    expect(reply.location).toBe('/me?tab=1');
    expect(jar.get(TX)).toBeUndefined();
    expect(await sessionUser(sessions, jar)).toBe('local:alice');
    const last = mapped.at(-1);
    expect(last?.user).toMatchObject({
      provider: 'local',
      subject: 'alice',
      email: 'alice@example.com',
      emailVerified: true,
    });
    expect(last?.context.registrationId).toBe('local');
    expect(last?.context.tokens.refreshToken).toEqual(expect.any(String));
    expect(local.requests).toContain('POST /token');
    expect(received.slice(before)).toContainEqual(
      expect.objectContaining({ type: 'authentication-success', username: 'local:alice' }),
    );
  });

  it('the refresh token the mapper saw refreshes through the same client', async () => {
    const jar = new CookieJar();
    await follow(await throughProvider(jar), jar);
    const stored = mapped.at(-1)?.context.tokens;
    const refreshed = await repository.get('local').refresh(stored?.refreshToken ?? '');
    expect(refreshed.accessToken).toEqual(expect.any(String));
    expect(refreshed.accessToken).not.toBe(stored?.accessToken);
  });

  it('two providers pending in one browser: both complete', async () => {
    const jar = new CookieJar();
    const a = await throughProvider(jar, 'local');
    const b = await throughProvider(jar, 'other', { subject: 'bob' });
    expect((await follow(b, jar)).location).toBe('/');
    expect(await sessionUser(sessions, jar)).toBe('other:bob');
    expect((await follow(a, jar)).location).toBe('/');
    expect(await sessionUser(sessions, jar)).toBe('local:alice');
  });

  describe('attacks', () => {
    it('missing state: refused, no code exchanged', async () => {
      const jar = new CookieJar();
      const callback = await throughProvider(jar);
      callback.searchParams.delete('state');
      await expectRefused(await follow(callback, jar), jar, 'ERR_OAUTH2_STATE');
      expect(local.requests).not.toContain('POST /token');
    });

    it('wrong state: refused, no code exchanged', async () => {
      const jar = new CookieJar();
      const callback = await throughProvider(jar);
      callback.searchParams.set('state', `${callback.searchParams.get('state') ?? ''}x`);
      await expectRefused(await follow(callback, jar), jar, 'ERR_OAUTH2_STATE');
      expect(local.requests).not.toContain('POST /token');
    });

    it("foreign state (login CSRF): the attacker's own callback in the victim's browser is refused", async () => {
      const attacker = new CookieJar();
      const attackersCallback = await throughProvider(attacker, 'local', { subject: 'bob' });
      // A victim with a login of their own pending, and one with none at all.
      const victim = new CookieJar();
      await throughProvider(victim);
      await expectRefused(await follow(attackersCallback, victim), victim, 'ERR_OAUTH2_STATE');
      const fresh = new CookieJar();
      await expectRefused(await follow(attackersCallback, fresh), fresh, 'ERR_OAUTH2_TRANSACTION');
      expect(local.requests).not.toContain('POST /token');
      // The attacker's own login still works for the attacker: nothing was spent.
      expect((await follow(attackersCallback, attacker)).location).toBe('/');
      expect(await sessionUser(sessions, attacker)).toBe('local:bob');
    });

    it('replayed state: the same callback again (and with a copy of the cookie) is refused', async () => {
      const jar = new CookieJar();
      const callback = await throughProvider(jar);
      const copy = jar.copy();
      expect((await follow(callback, jar)).location).toBe('/');
      const again = new CookieJar();
      await expectRefused(await follow(callback, again), again, 'ERR_OAUTH2_TRANSACTION');
      await expectRefused(await follow(callback, copy), copy, 'ERR_OAUTH2_TRANSACTION');
      expect(local.requests.filter((r) => r === 'POST /token')).toHaveLength(1);
    });

    it.each(['code', 'state', 'iss'])('a duplicated %s parameter: refused', async (name) => {
      const jar = new CookieJar();
      const callback = await throughProvider(jar);
      callback.searchParams.append(name, callback.searchParams.get(name) ?? 'x');
      await expectRefused(await follow(callback, jar), jar, 'ERR_OAUTH2_INVALID_RESPONSE');
      expect(local.requests).not.toContain('POST /token');
    });

    it('a callback for one provider replayed at another: refused, no code exchanged anywhere', async () => {
      const jar = new CookieJar();
      const callback = await throughProvider(jar, 'local');
      const replayed = new URL(`/login/oauth2/code/other${callback.search}`, app.origin);
      await expectRefused(await follow(replayed, jar), jar, 'ERR_OAUTH2_TRANSACTION');
      expect(local.requests).not.toContain('POST /token');
      expect(other.requests).not.toContain('POST /token');
    });

    it('a wrong iss in the callback: refused', async () => {
      const jar = new CookieJar();
      const callback = await throughProvider(jar);
      callback.searchParams.set('iss', other.issuer);
      await expectRefused(await follow(callback, jar), jar, 'ERR_OAUTH2_ISSUER');
      expect(local.requests).not.toContain('POST /token');
    });

    it("nonce replay: an earlier login's ID token returned again is refused", async () => {
      const first = new CookieJar();
      await follow(await throughProvider(first), first);
      const oldIdToken = mapped.at(-1)?.context.tokens.idToken;
      expect(oldIdToken).toEqual(expect.any(String));
      local.tamper.tokenResponse = (body) => ({ ...body, id_token: oldIdToken });
      const jar = new CookieJar();
      await expectRefused(
        await follow(await throughProvider(jar), jar),
        jar,
        'ERR_OAUTH2_ID_TOKEN',
      );
    });

    it("the user denies at the provider: the flag, never the provider's text", async () => {
      const jar = new CookieJar();
      const callback = await throughProvider(jar, 'local', { decision: 'deny' });
      expect(callback.searchParams.get('error')).toBe('access_denied');
      const reply = await follow(callback, jar);
      await expectRefused(reply, jar, 'ERR_OAUTH2_PROVIDER_ERROR');
      expect(JSON.stringify(reply)).not.toMatch(/refused|access_denied|<b>/u);
      expect(jar.get(TX)).toBeUndefined();
    });

    it.each(['//evil.com', '/\\evil.com', 'https://app@evil.com', 'javascript:alert(1)'])(
      'open redirect %j: the default target',
      async (target) => {
        const jar = new CookieJar();
        const reply = await follow(await throughProvider(jar, 'local', { continue: target }), jar);
        expect(reply.status).toBe(303);
        expect(reply.location).toBe('/');
        expect(await sessionUser(sessions, jar)).toBe('local:alice');
      },
    );
  });
});
