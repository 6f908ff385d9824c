import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { SecurityRequest } from '../core/request.js';
import type { SessionSettings } from './config.js';

/** Why a cookie-authenticated unsafe request failed the CSRF checks. */
export type CsrfFailure = 'cross-site' | 'untrusted-origin' | 'missing-token' | 'invalid-token';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** Whether a method changes state (CSRF checks apply). @internal */
export function isUnsafe(method: string): boolean {
  return !SAFE.has(method.toUpperCase());
}

/**
 * Derives one CSRF key per iron password (HKDF-SHA256), so tokens rotate with the
 * passwords and old forms keep working while the old password is listed.
 *
 * @internal
 */
export function csrfKeys(settings: SessionSettings): ReadonlyMap<string, Buffer> {
  const keys = new Map<string, Buffer>();
  for (const [id, password] of Object.entries(settings.passwords)) {
    keys.set(id, Buffer.from(hkdfSync('sha256', password, 'portcullis', `csrf:${id}`, 32)));
  }
  return keys;
}

/** The newest password id (the one that seals). @internal */
export function newestId(settings: SessionSettings): string {
  return String(Math.max(...Object.keys(settings.passwords).map(Number)));
}

/**
 * The synchronizer token of a session: `<password id>.<HMAC-SHA256(key, sid)>`,
 * base64url. Bound to the session id, so a token from another session (or from
 * before login, which creates a fresh session) fails.
 *
 * @internal
 */
export function tokenFor(keys: ReadonlyMap<string, Buffer>, id: string, sid: string): string {
  const key = keys.get(id) as Buffer;
  return `${id}.${createHmac('sha256', key).update(`csrf\u0000${sid}`).digest('base64url')}`;
}

/** Whether a token is the session's (constant-time comparison). @internal */
export function verifyToken(
  keys: ReadonlyMap<string, Buffer>,
  sid: string,
  token: string | undefined,
): boolean {
  if (typeof token !== 'string' || token.length > 128) return false;
  const dot = token.indexOf('.');
  const id = token.slice(0, dot);
  if (dot <= 0 || !keys.has(id)) return false;
  const expected = Buffer.from(tokenFor(keys, id, sid));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The browser-metadata check of an unsafe request: `Sec-Fetch-Site` (`same-origin`
 * passes; `same-site` / `cross-site` only from a trusted origin), else `Origin`
 * (the application's own or a trusted one). `undefined` when it passes, `null` when
 * the request carries neither header (a non-browser client, or a very old browser:
 * the token decides).
 *
 * @internal
 */
export function checkOrigin(
  settings: SessionSettings,
  request: SecurityRequest,
): CsrfFailure | undefined | null {
  const site = request.header('sec-fetch-site')?.trim().toLowerCase();
  const origin = request.header('origin')?.trim();
  if (site === 'same-origin' || site === 'none') return undefined;
  if (site !== undefined) {
    return origin !== undefined && settings.trustedOrigins.includes(origin)
      ? undefined
      : 'cross-site';
  }
  if (origin === undefined) return null;
  if (origin === 'null') return 'untrusted-origin';
  if (ownOrigins(settings, request).includes(origin) || settings.trustedOrigins.includes(origin)) {
    return undefined;
  }
  return 'untrusted-origin';
}

function ownOrigins(settings: SessionSettings, request: SecurityRequest): readonly string[] {
  if (settings.origins.length > 0) return settings.origins;
  if (/^https?:\/\//u.test(request.url)) return [new URL(request.url).origin];
  const host = request.header('host');
  if (host === undefined || !/^[A-Za-z0-9.:[\]-]+$/u.test(host)) return [];
  return [`${request.secure ? 'https' : 'http'}://${host.toLowerCase()}`];
}
