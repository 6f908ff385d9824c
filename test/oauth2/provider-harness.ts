/**
 * A real OpenID Provider for tests: `oidc-provider` (a certified OP) on 127.0.0.1,
 * issuer `http://127.0.0.1:<port>`, with an in-memory account store, registered
 * confidential clients, PKCE required, RFC 9207 `iss` in authorization responses,
 * and a tiny programmatic login + consent instead of the provider's dev pages.
 *
 * Tests drive the full authorization-code flow over HTTP with `fetch`:
 *
 * ```ts
 * const op = await startProviderHarness({ clients: [{ redirectUris: ['http://127.0.0.1:4000/cb'] }] });
 * const [url, state, pkceVerifier, nonce] = await client.authorizationUrl();
 * const callback = await op.login(url, { subject: 'alice' }); // → http://127.0.0.1:4000/cb?code=…&state=…&iss=…
 * await client.handleCallback(callback, { state, pkceVerifier, nonce });
 * await op.close();
 * ```
 *
 * Attack material (all reset by {@link ProviderHarness.reset}):
 * - `op.tamper.tokenResponse = (body) => ({ ...body, id_token: await op.signIdToken(…) })` rewrites
 *   the token endpoint's JSON (authorization code and refresh grants);
 * - `op.tamper.userinfo = (body) => ({ ...body, sub: 'mallory' })` rewrites the userinfo JSON;
 * - `op.tamper.discovery = (body) => ({ ...body, issuer: 'http://127.0.0.1:1' })` rewrites the
 *   discovery document;
 * - `op.signIdToken(claims, { signer })` signs an ID token with the provider's own key
 *   (`'provider'`, to test claim checks), a key the provider never published (`'foreign'`,
 *   with the provider's `kid` unless `kid` is given), HS256 with the client secret
 *   (`'client-secret'`, algorithm confusion), or not at all (`'none'`, `alg: none`);
 * - `op.idTokenClaims({ … })` gives a complete, valid claims set to start from.
 *
 * Interaction endpoints (provider-harness-interactions.ts; also usable from a real
 * browser, they render tiny HTML forms): `GET /interaction/:uid` (JSON or HTML),
 * `POST /interaction/:uid/login` (`subject=alice`), `POST /interaction/:uid/confirm`,
 * `POST /interaction/:uid/abort` (→ `error=access_denied` with an `error_description`
 * full of markup, to check it never reaches a message or a page).
 *
 * `op.requests` logs every request the provider received (`'POST /token'`, `'GET /jwks'`,
 * `'GET /me'`), to prove a step happened or did not. Every fetch of the login driver has a
 * 5 s timeout; close the harness in `afterAll`.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import Provider, { type Account, type KoaContextLike } from 'oidc-provider';
import { driveLogin, handleInteraction } from './provider-harness-interactions.js';

/** A registered client of the harness. */
export interface HarnessClient {
  /** @defaultValue `'portcullis-test'` */
  readonly clientId?: string;
  /** @defaultValue {@link TEST_CLIENT_SECRET} */
  readonly clientSecret?: string;
  /** The registered redirect URIs (matched exactly by the provider). */
  readonly redirectUris: readonly string[];
  /** @defaultValue `'client_secret_basic'` */
  readonly tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
}

/** The claims of an account, keyed by subject. */
export type HarnessAccounts = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** Options of {@link startProviderHarness}. */
export interface ProviderHarnessOptions {
  /** @defaultValue one client, `portcullis-test`, redirect URI {@link TEST_REDIRECT_URI} */
  readonly clients?: readonly HarnessClient[];
  /** @defaultValue {@link TEST_ACCOUNTS} */
  readonly accounts?: HarnessAccounts;
}

/** Rewrites a JSON body before the provider sends it (attack material). */
export type BodyTamper = (
  body: Record<string, unknown>,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** How {@link ProviderHarness.signIdToken} signs. */
export interface SignOptions {
  /**
   * `'provider'`: the provider's published key; `'foreign'`: a key it never published;
   * `'none'`: an unsecured JWT (`alg: none`); `'client-secret'`: HS256 with the default
   * client's secret (the algorithm-confusion attack). @defaultValue `'provider'`
   */
  readonly signer?: 'provider' | 'foreign' | 'none' | 'client-secret';
  /** The `kid` header. @defaultValue the provider key's `kid` (also for `'foreign'`) */
  readonly kid?: string;
}

/** A running provider. */
export interface ProviderHarness {
  /** `http://127.0.0.1:<port>` */
  readonly issuer: string;
  readonly provider: Provider;
  /** Responses the next token/userinfo/discovery requests are rewritten with. */
  readonly tamper: {
    tokenResponse: BodyTamper | undefined;
    userinfo: BodyTamper | undefined;
    discovery: BodyTamper | undefined;
  };
  /** Paths of the requests the provider received, in order (e.g. `'POST /token'`). */
  readonly requests: string[];
  /**
   * Follows an authorization URL through login and consent as `subject` and returns
   * the final redirect to the client's redirect URI (with `code`, `state`, `iss`, or an
   * `error`). `decision: 'deny'` aborts at the login step (→ `error=access_denied`).
   */
  login(
    authorizationUrl: URL | string,
    options?: { readonly subject?: string; readonly decision?: 'allow' | 'deny' },
  ): Promise<URL>;
  /** A complete, valid ID token claims set for the default client (override any claim). */
  idTokenClaims(overrides?: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /** Signs an ID token (see {@link SignOptions}). */
  signIdToken(claims: Readonly<Record<string, unknown>>, options?: SignOptions): Promise<string>;
  /** Clears every tamper hook and the request log. */
  reset(): void;
  close(): Promise<void>;
}

/** The default client's secret. */
export const TEST_CLIENT_SECRET = 'portcullis-test-client-secret-0123456789abcdef';
/** The default client's id. */
export const TEST_CLIENT_ID = 'portcullis-test';
/** The default client's redirect URI (nothing listens there: tests read the redirect). */
export const TEST_REDIRECT_URI = 'http://127.0.0.1:9/login/oauth2/code/local';

/** The default accounts: a verified email, an unverified email, and no email. */
export const TEST_ACCOUNTS: HarnessAccounts = {
  alice: {
    email: 'alice@example.com',
    email_verified: true,
    name: 'Alice Liddell',
    picture: 'https://example.com/alice.png',
  },
  bob: { email: 'bob@example.com', email_verified: false, name: 'Bob' },
  carol: { name: 'Carol' },
};

/** Starts the provider on 127.0.0.1 (a free port). Close it in `afterAll`. */
export async function startProviderHarness(
  options: ProviderHarnessOptions = {},
): Promise<ProviderHarness> {
  const accounts = options.accounts ?? TEST_ACCOUNTS;
  const clients = (options.clients ?? [{ redirectUris: [TEST_REDIRECT_URI] }]).map((c) => ({
    client_id: c.clientId ?? TEST_CLIENT_ID,
    client_secret: c.clientSecret ?? TEST_CLIENT_SECRET,
    redirect_uris: [...c.redirectUris],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: c.tokenEndpointAuthMethod ?? 'client_secret_basic',
  }));
  const signing = await generateKeyPair('RS256', { extractable: true });
  const foreign = await generateKeyPair('RS256');
  const kid = randomUUID();
  const jwk: JWK = { ...(await exportJWK(signing.privateKey)), kid, alg: 'RS256', use: 'sig' };

  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients,
    jwks: { keys: [jwk] },
    cookies: { keys: [randomUUID(), randomUUID()] },
    findAccount: (_ctx: unknown, id: string): Account | undefined => {
      const claims = Object.hasOwn(accounts, id) ? accounts[id] : undefined;
      return claims && { accountId: id, claims: () => ({ ...claims, sub: id }) };
    },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'picture'],
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, i: { uid: string }) => `/interaction/${i.uid}` },
    pkce: { required: () => true },
    issueRefreshToken: () => true,
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      Grant: 3600,
      IdToken: 3600,
      Interaction: 600,
      RefreshToken: 86_400,
      Session: 3600,
    },
    renderError: (ctx: KoaContextLike, out: Record<string, unknown>) => {
      ctx.type = 'json';
      ctx.body = { error: out.error };
    },
  });

  const harness = new Harness(
    issuer,
    provider,
    server,
    foreign.privateKey,
    signing.privateKey,
    kid,
  );
  provider.use(harness.middleware);
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    harness.requests.push(`${req.method ?? 'GET'} ${new URL(req.url ?? '/', issuer).pathname}`);
    if (req.url?.startsWith('/interaction/') === true) {
      handleInteraction(provider, req, res, accounts).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(error instanceof Error ? error.message : 'interaction failed');
      });
      return;
    }
    callback(req, res);
  });
  return harness;
}

class Harness implements ProviderHarness {
  readonly tamper: ProviderHarness['tamper'] = {
    tokenResponse: undefined,
    userinfo: undefined,
    discovery: undefined,
  };
  readonly requests: string[] = [];

  constructor(
    readonly issuer: string,
    readonly provider: Provider,
    private readonly server: Server,
    private readonly foreignKey: CryptoKey,
    private readonly providerKey: CryptoKey,
    private readonly kid: string,
  ) {}

  /** Koa middleware: applies the tamper hooks to JSON bodies. */
  readonly middleware = async (ctx: KoaContextLike, next: () => Promise<void>): Promise<void> => {
    await next();
    const hook =
      ctx.path === '/token'
        ? this.tamper.tokenResponse
        : ctx.path === '/me'
          ? this.tamper.userinfo
          : ctx.path === '/.well-known/openid-configuration'
            ? this.tamper.discovery
            : undefined;
    if (hook && ctx.status === 200 && isRecord(ctx.body)) {
      ctx.body = await hook({ ...ctx.body });
    }
  };

  login(
    authorizationUrl: URL | string,
    options: { readonly subject?: string; readonly decision?: 'allow' | 'deny' } = {},
  ): Promise<URL> {
    return driveLogin(this.issuer, authorizationUrl, options);
  }

  idTokenClaims(overrides: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: this.issuer,
      sub: 'alice',
      aud: TEST_CLIENT_ID,
      iat: now,
      exp: now + 600,
      ...overrides,
    };
  }

  async signIdToken(
    claims: Readonly<Record<string, unknown>>,
    options: SignOptions = {},
  ): Promise<string> {
    const signer = options.signer ?? 'provider';
    const kid = options.kid ?? this.kid;
    if (signer === 'none') {
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
    }
    if (signer === 'client-secret') {
      return new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .sign(new TextEncoder().encode(TEST_CLIENT_SECRET));
    }
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid })
      .sign(signer === 'foreign' ? this.foreignKey : this.providerKey);
  }

  reset(): void {
    this.tamper.tokenResponse = undefined;
    this.tamper.userinfo = undefined;
    this.tamper.discovery = undefined;
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => {
      this.server.close((error) => {
        if (error) reject(error);
        else resolve();
      });
    });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Starts a provider harness before the file's tests and closes it after them,
 * resetting its tampering after each test: `started` receives it.
 *
 * @example
 * ```ts
 * let op: ProviderHarness;
 * useProviderHarness({ clients: [...] }, (harness) => (op = harness));
 * ```
 */
export function useProviderHarness(
  options: ProviderHarnessOptions | undefined,
  started: (harness: ProviderHarness) => void,
): void {
  let harness: ProviderHarness | undefined;
  beforeAll(async () => {
    harness = await startProviderHarness(options);
    started(harness);
  });
  afterAll(async () => {
    await harness?.close();
  });
  afterEach(() => {
    harness?.reset();
  });
}
