import { DEMO_USERS } from '../../examples/app.js';

/** A demo user's name. */
export type Username = (typeof DEMO_USERS)[number]['username'];

/** The names of the demo users. */
export const USERNAMES: readonly Username[] = DEMO_USERS.map((u) => u.username);

/** What one demo user can present: each credential verbatim, as issued. */
export interface UserCredentials {
  readonly username: Username;
  readonly password: string;
  /** The base64 of `username:password` (after `Basic `). */
  readonly basic: string;
  /** An access token from `POST /auth/login`. */
  readonly accessToken: string;
  /** A refresh token from `POST /auth/login`. */
  readonly refreshToken: string;
  /** The session cookie, `name=value`, from the login form. */
  readonly sessionCookie: string;
}

/** Every demo user's credentials, obtained from the running example. */
export type Credentials = ReadonlyMap<Username, UserCredentials>;

const HTML = 'text/html,application/xhtml+xml';

/** Logs each demo user in three ways (Basic needs nothing): a token pair and a session. */
export async function obtainCredentials(origin: string): Promise<Credentials> {
  const credentials = new Map<Username, UserCredentials>();
  for (const { username, password } of DEMO_USERS) {
    const login = await fetch(`${origin}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    if (login.status !== 200) throw new Error(`POST /auth/login for ${username}: ${login.status}`);
    const pair = (await login.json()) as { access_token: string; refresh_token: string };
    credentials.set(username, {
      username,
      password,
      basic: Buffer.from(`${username}:${password}`, 'utf8').toString('base64'),
      accessToken: pair.access_token,
      refreshToken: pair.refresh_token,
      sessionCookie: await sessionOf(origin, username, password),
    });
  }
  return credentials;
}

async function sessionOf(origin: string, username: string, password: string): Promise<string> {
  const form = await fetch(`${origin}/login`, { headers: { accept: HTML } });
  const html = await form.text();
  const csrf = /name="_csrf" value="([^"]*)"/u.exec(html)?.[1];
  const preLogin = form.headers.getSetCookie()[0]?.split(';', 1)[0];
  if (csrf === undefined || preLogin === undefined) throw new Error('GET /login: no form');
  const response = await fetch(`${origin}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: preLogin,
      origin,
      'sec-fetch-site': 'same-origin',
    },
    body: new URLSearchParams({ username, password, _csrf: csrf }).toString(),
  });
  const cookie = response.headers.getSetCookie()[0]?.split(';', 1)[0];
  if (response.status !== 303 || cookie === undefined) {
    throw new Error(`POST /login for ${username}: ${response.status}`);
  }
  return cookie;
}

/** Characters that continue a token, a base64 string or a sealed cookie. */
const CONTINUES = /[A-Za-z0-9+/=_\-.~*%]/u;

/** Characters that continue a cookie name. */
const NAME_CONTINUES = /[A-Za-z0-9_\-.]/u;

/**
 * Whether `text` holds `needle` as a whole word: not part of a longer credential
 * (`before` tells which characters before it would continue it).
 */
export function holdsVerbatim(text: string, needle: string, before = CONTINUES): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(needle, from);
    if (at < 0) return false;
    const previous = at === 0 ? '' : text.charAt(at - 1);
    const next = text.charAt(at + needle.length);
    if (!before.test(previous) && !CONTINUES.test(next)) return true;
    from = at + 1;
  }
}

/** The users one of whose credentials the raw request holds verbatim. */
export function carriedUsers(raw: string, credentials: Credentials): Set<Username> {
  const carried = new Set<Username>();
  for (const c of credentials.values()) {
    if (
      holdsVerbatim(raw, c.basic) ||
      holdsVerbatim(raw, c.accessToken) ||
      holdsVerbatim(raw, c.refreshToken) ||
      holdsVerbatim(raw, c.sessionCookie, NAME_CONTINUES) ||
      // RFC 6265 §4.1.1: a cookie value may be quoted.
      holdsVerbatim(raw, c.sessionCookie.replace('=', '="') + '"', NAME_CONTINUES) ||
      // A login body (JSON or form) with the password, verbatim or percent-encoded.
      raw.includes(c.password)
    ) {
      carried.add(c.username);
    }
  }
  return carried;
}

/** Replaces each credential in a raw request by a placeholder naming it. */
export function redact(raw: string, credentials: Credentials): string {
  let out = raw;
  for (const c of credentials.values()) {
    const value = c.sessionCookie.slice(c.sessionCookie.indexOf('=') + 1);
    out = out
      .replaceAll(c.accessToken, `<access-token:${c.username}>`)
      .replaceAll(c.refreshToken, `<refresh-token:${c.username}>`)
      .replaceAll(value, `<session:${c.username}>`)
      .replaceAll(c.basic, `<basic:${c.username}>`)
      .replaceAll(c.password, `<password:${c.username}>`);
  }
  return out;
}
