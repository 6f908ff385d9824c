/**
 * A development OpenID Provider for the example: `oidc-provider` (a certified OP, a
 * devDependency) on 127.0.0.1, issuer `http://127.0.0.1:<port>`, with one confidential
 * client for the example's redirect URI, PKCE (S256) required and RFC 9207 `iss` in
 * every authorization response (oidc-provider always sends it for the code flow).
 *
 * Its own pages replace oidc-provider's development interactions: a login form
 * (username and password of the accounts given) and a consent step that approves at
 * once (the only client is the example). Loopback only; never a real identity provider.
 *
 * `examples/server.ts` starts it with `OAUTH2_DEV_PROVIDER=1`; load this module with
 * a dynamic `import()` so that `oidc-provider` is only needed then.
 */
import { once } from 'node:events';
import { createHash, generateKeyPairSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Account, type KoaContextLike } from 'oidc-provider';
import { escapeHtml } from './session-pages.js';

/** An account at the provider: its subject is the username typed into its login form. */
export interface DevProviderAccount {
  readonly subject: string;
  readonly password: string;
  /** Reported with `email_verified: true`. */
  readonly email: string;
  /** Shown next to the account on the login page. @defaultValue none */
  readonly note?: string;
}

/** Options of {@link startDevProvider}. */
export interface DevProviderOptions {
  /** The client's redirect URI (`http://127.0.0.1:<examplePort>/login/oauth2/code/local`), matched exactly. */
  readonly redirectUri: string;
  readonly accounts: readonly DevProviderAccount[];
  /** The port on 127.0.0.1. @defaultValue `0` (a free port) */
  readonly port?: number;
}

/** A running development provider: issuer `http://127.0.0.1:<port>`, client `portcullis-example`. */
export interface DevProvider {
  readonly issuer: string;
  readonly clientId: string;
  /** Random for each start. */
  readonly clientSecret: string;
  close(): Promise<void>;
}

const CLIENT_ID = 'portcullis-example';

/**
 * Starts the development provider on 127.0.0.1.
 *
 * @example
 * ```ts
 * const op = await startDevProvider({ redirectUri: 'http://127.0.0.1:3000/login/oauth2/code/local', accounts });
 * // OAuth2Provider.oidc({ issuer: op.issuer, name: 'local' }) with op.clientId / op.clientSecret
 * await op.close();
 * ```
 */
export async function startDevProvider(options: DevProviderOptions): Promise<DevProvider> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError('port must be an integer from 0 to 65535');
  }
  const redirect = new URL(options.redirectUri);
  const accounts = new Map(options.accounts.map((account) => [account.subject, account]));
  const clientSecret = randomBytes(32).toString('base64url');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

  const server = createServer();
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: [redirect.href],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    findAccount: (_ctx: unknown, id: string): Account | undefined => {
      const email = accounts.get(id)?.email;
      if (email === undefined) return undefined;
      return { accountId: id, claims: () => ({ sub: id, email, email_verified: true }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, i: { uid: string }) => `/interaction/${i.uid}` },
    pkce: { required: () => true },
    renderError: (ctx: KoaContextLike, out: Record<string, unknown>) => {
      const error = typeof out['error'] === 'string' ? out['error'] : 'server_error';
      ctx.type = 'html';
      ctx.body = page('Error', `<p class="error">Refused: ${escapeHtml(error)}.</p>`);
    },
  });
  const pages = new Pages(provider, accounts, redirect.origin);
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/') !== true) {
      callback(req, res);
      return;
    }
    pages.handle(req, res).catch(() => {
      // An unknown or expired interaction: no details, the flow starts again at the example.
      if (res.headersSent) res.destroy();
      else
        notice(res, 400, 'This login is unknown or has expired. Start again from the application.');
    });
  });
  return Object.freeze({
    issuer,
    clientId: CLIENT_ID,
    clientSecret,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  });
}

/** The interaction pages: `GET /interaction/:uid`, `POST /interaction/:uid/login` and `/abort`. */
class Pages {
  constructor(
    private readonly provider: Provider,
    private readonly accounts: ReadonlyMap<string, DevProviderAccount>,
    private readonly clientOrigin: string,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const match = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|abort))?$/u.exec(req.url ?? '');
    const action = match?.[2];
    if (match === null || req.method !== (action === undefined ? 'GET' : 'POST')) {
      notice(res, 404, 'Not found.');
      return;
    }
    const details = await this.provider.interactionDetails(req, res);
    if (action === undefined) {
      if (details.prompt.name === 'login') {
        send(res, 200, this.loginPage(details.uid, ''), this.clientOrigin);
      } else {
        await this.approve(req, res, details);
      }
      return;
    }
    // Only the provider's own page posts here (a login CSRF from another page is refused).
    if (!sameOrigin(req)) {
      notice(res, 403, 'Cross-site form posts are refused.');
      return;
    }
    if (action === 'abort') {
      await this.provider.interactionFinished(req, res, { error: 'access_denied' });
      return;
    }
    if (details.prompt.name !== 'login') {
      notice(res, 400, 'This step is not a login.');
      return;
    }
    const form = await readForm(req);
    const username = form?.get('username') ?? '';
    const account = this.accounts.get(username);
    if (account === undefined || !samePassword(form?.get('password') ?? '', account.password)) {
      send(res, 401, this.loginPage(details.uid, username, true), this.clientOrigin);
      return;
    }
    await this.provider.interactionFinished(req, res, { login: { accountId: account.subject } });
  }

  /** The consent prompt, approved at once: grants the scopes and claims the client asked for. */
  private async approve(
    req: IncomingMessage,
    res: ServerResponse,
    details: Awaited<ReturnType<Provider['interactionDetails']>>,
  ): Promise<void> {
    const accountId = details.session?.accountId;
    const clientId = details.params['client_id'];
    if (typeof accountId !== 'string' || typeof clientId !== 'string') {
      throw new Error('consent without a login');
    }
    const { Grant } = this.provider;
    const grant =
      (details.grantId === undefined ? undefined : await Grant.find(details.grantId)) ??
      new Grant({ accountId, clientId });
    const missing = details.prompt.details;
    if (Array.isArray(missing['missingOIDCScope'])) {
      grant.addOIDCScope((missing['missingOIDCScope'] as string[]).join(' '));
    }
    if (Array.isArray(missing['missingOIDCClaims'])) {
      grant.addOIDCClaims(missing['missingOIDCClaims'] as string[]);
    }
    const grantId = await grant.save();
    await this.provider.interactionFinished(
      req,
      res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
  }

  private loginPage(uid: string, username: string, failed = false): string {
    const action = `/interaction/${encodeURIComponent(uid)}`;
    const rows = [...this.accounts.values()]
      .map((a) => {
        const note = a.note === undefined ? '' : ` — ${escapeHtml(a.note)}`;
        return `<li><code>${escapeHtml(a.subject)}</code> (${escapeHtml(a.email)})${note}</li>`;
      })
      .join('');
    const error = failed
      ? '<p class="error" role="alert" id="provider-error">Wrong username or password.</p>'
      : '';
    return page(
      'Log in',
      `<h1>Local test provider</h1>
<p>A development OpenID provider for the portcullis example. Log in as one of:</p>
<ul>${rows}</ul>
<p>The password is the example's demo password (<code>&lt;name&gt;-password</code>).</p>
${error}
<form method="post" action="${action}/login" id="provider-login">
  <label>Username <input name="username" value="${escapeHtml(username)}" autocomplete="username" required autofocus></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">Log in</button>
</form>
<form method="post" action="${action}/abort"><button type="submit" class="secondary">Cancel</button></form>`,
    );
  }
}

/**
 * Whether a form post comes from the provider's own page: `Sec-Fetch-Site` when sent (with
 * `Referrer-Policy: no-referrer` browsers post `Origin: null`), else the `Origin`, if any.
 */
function sameOrigin(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = req.headers.origin;
  return origin === undefined || origin === `http://${req.headers.host ?? ''}`;
}

/** Compares digests in constant time (the lengths of the passwords stay private). */
function samePassword(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 4096) return undefined;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function send(res: ServerResponse, status: number, html: string, formTarget = ''): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // The login form's redirects end at the client's redirect URI: form-action allows it.
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self' ${formTarget}; frame-ancestors 'none'; base-uri 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(html);
}

const STYLE = `body { font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 2rem auto; padding: 0 1rem; color: #1d2330; background: #fbf7ef; }
form { display: grid; gap: .6rem; max-width: 20rem; margin-top: .8rem; } label { display: grid; gap: .2rem; font-weight: 600; }
input { font: inherit; padding: .35rem .5rem; border: 1px solid #9aa3b5; border-radius: 4px; }
button { font: inherit; padding: .4rem .9rem; border: 0; border-radius: 4px; background: #b5651d; color: #fff; cursor: pointer; } button.secondary { background: #767d8c; }
.error { padding: .5rem .8rem; border-radius: 4px; background: #fde8e8; color: #8a1c1c; }`;

/** A page with one message (escaped). */
function notice(res: ServerResponse, status: number, message: string): void {
  send(res, status, page('Local test provider', `<p class="error">${escapeHtml(message)}</p>`));
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>${escapeHtml(title)} · local test provider</title><style>${STYLE}</style></head>
<body>
${body}
</body></html>
`;
}
