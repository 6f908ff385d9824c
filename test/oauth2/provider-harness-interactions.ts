/**
 * The harness's login and consent pages (JSON for tests, tiny HTML forms for a real
 * browser) and the driver that follows an authorization URL through them with fetch and
 * a cookie jar. See provider-harness.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { HarnessAccounts } from './provider-harness.js';

const TIMEOUT_MS = 5000;

/** Serves `GET /interaction/:uid` and `POST /interaction/:uid/{login,confirm,abort}`. */
export async function handleInteraction(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  accounts: HarnessAccounts,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const action = /^\/interaction\/[^/]+\/(login|confirm|abort)$/u.exec(req.url ?? '')?.[1];
  if (req.method === 'GET' && action === undefined) {
    const wantsHtml = req.headers.accept?.includes('text/html') === true;
    res.setHeader('content-type', wantsHtml ? 'text/html; charset=utf-8' : 'application/json');
    res.end(wantsHtml ? page(details.uid, details.prompt.name) : JSON.stringify(describe(details)));
    return;
  }
  if (req.method !== 'POST' || action === undefined) {
    res.statusCode = 405;
    res.end();
    return;
  }
  const form = new URLSearchParams(await readBody(req));
  if (action === 'abort') {
    await provider.interactionFinished(req, res, {
      error: 'access_denied',
      error_description: 'The user <b>refused</b> "everything"',
    });
    return;
  }
  if (action === 'login') {
    const subject = form.get('subject') ?? '';
    if (!Object.hasOwn(accounts, subject)) {
      res.statusCode = 400;
      res.end('unknown subject');
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: subject } });
    return;
  }
  const accountId = details.session?.accountId;
  const clientId = details.params.client_id;
  if (typeof accountId !== 'string' || typeof clientId !== 'string') {
    throw new Error('consent without a session');
  }
  const grant =
    (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ??
    new provider.Grant({ accountId, clientId });
  const missing = details.prompt.details;
  if (Array.isArray(missing.missingOIDCScope)) {
    grant.addOIDCScope((missing.missingOIDCScope as string[]).join(' '));
  }
  if (Array.isArray(missing.missingOIDCClaims)) {
    grant.addOIDCClaims(missing.missingOIDCClaims as string[]);
  }
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { consent: { grantId } },
    { mergeWithLastSubmission: true },
  );
}

/**
 * Follows an authorization URL through login (as `subject`) and consent, or aborts
 * (`decision: 'deny'`), and returns the provider's redirect back to the client.
 */
export async function driveLogin(
  issuer: string,
  authorizationUrl: URL | string,
  options: { readonly subject?: string; readonly decision?: 'allow' | 'deny' } = {},
): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 20; hop++) {
    if (url.origin !== issuer) return url;
    let response: Response;
    const interaction = /^\/interaction\/([^/]+)$/u.exec(url.pathname);
    if (interaction) {
      const page = await fetchWithJar(url, jar, { headers: { accept: 'application/json' } });
      const { prompt } = (await page.json()) as { prompt: string };
      const action =
        options.decision === 'deny' ? 'abort' : prompt === 'login' ? 'login' : 'confirm';
      response = await fetchWithJar(new URL(`${url.pathname}/${action}`, url), jar, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ subject: options.subject ?? 'alice' }).toString(),
      });
    } else {
      response = await fetchWithJar(url, jar, {});
    }
    const location = response.headers.get('location');
    if (location === null) {
      throw new Error(`the provider answered ${response.status} at ${url.pathname}`);
    }
    url = new URL(location, url);
  }
  throw new Error('too many redirects');
}

async function fetchWithJar(
  url: URL,
  jar: Map<string, string>,
  init: RequestInit,
): Promise<Response> {
  const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const response = await fetch(url, {
    ...init,
    redirect: 'manual',
    signal: AbortSignal.timeout(TIMEOUT_MS),
    headers: { ...(init.headers as Record<string, string> | undefined), cookie },
  });
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  return response;
}

function describe(details: {
  uid: string;
  prompt: { name: string };
  params: Readonly<Record<string, unknown>>;
}) {
  return {
    uid: details.uid,
    prompt: details.prompt.name,
    clientId: details.params.client_id,
    scope: details.params.scope,
  };
}

function page(uid: string, prompt: string): string {
  const action = `/interaction/${encodeURIComponent(uid)}`;
  const main =
    prompt === 'login'
      ? `<form method="post" action="${action}/login"><label>Subject <input name="subject" value="alice"></label> <button type="submit">Log in</button></form>`
      : `<form method="post" action="${action}/confirm"><button type="submit">Allow</button></form>`;
  return `<!doctype html><title>Local test provider</title><h1>Local test provider</h1>${main}<form method="post" action="${action}/abort"><button type="submit">Cancel</button></form>`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 16_384) throw new Error('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
