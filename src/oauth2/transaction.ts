import { hkdfSync } from 'node:crypto';
import { ConfigurationError } from '../core/errors.js';

/**
 * One login in progress: what the authorization redirect made and the callback
 * must check against. Kept sealed in the browser's transaction cookie.
 *
 * @internal
 */
export interface LoginTransaction {
  /** 128 random bits (base64url): the replay guard remembers spent ids. */
  readonly id: string;
  readonly registrationId: string;
  /** The client's issuer when the login started; a callback from another one is refused. */
  readonly issuer: string;
  readonly state: string;
  readonly pkceVerifier: string;
  readonly nonce: string | undefined;
  /** A same-origin path, checked when stored. */
  readonly returnTarget: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
}

/** What the transaction cookie is made with. @internal */
export interface TransactionCookieSettings {
  /** Iron passwords derived for transactions only (see {@link derivePasswords}). */
  readonly passwords: Readonly<Record<string, string>>;
  readonly secure: boolean;
  readonly ttlSeconds: number;
  /** How many logins may be pending at once in one browser. */
  readonly maxPending: number;
  readonly clock: () => number;
}

/** The longest seal a cookie may carry (browsers stop at 4096 bytes per cookie). */
export const MAX_SEAL = 3800;
const VERSION = 1;
const PURPOSE = 'portcullis/oauth2 login transactions';
const SEAL = /^Fe26\.2\*[0-9]{1,9}\*[A-Za-z0-9_*~-]+~2$/u;
const ID = /^[A-Za-z0-9_-]{22}$/u;
/** A registration id as the routes accept it in a path segment. @internal */
export const REGISTRATION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/u;

type Iron = typeof import('iron-session');
let iron: Promise<Iron> | undefined;

/**
 * iron-session, loaded on first use: `portcullis/oauth2` stays importable without it
 * by applications that use the client but not the login routes.
 */
function loadIron(): Promise<Iron> {
  return (iron ??= import('iron-session'));
}

/**
 * Validates iron passwords as `SessionConfig` does (a string, or `{ id: password }`
 * with positive integer ids; each at least 32 characters) and derives from each a
 * password used for transactions only (HKDF-SHA256): a session cookie never opens as
 * a transaction, nor a transaction as a session.
 *
 * @internal
 */
export function derivePasswords(option: string, passwords: unknown): Record<string, string> {
  const entries =
    typeof passwords === 'string'
      ? [['1', passwords] as const]
      : typeof passwords === 'object' && passwords !== null
        ? Object.entries(passwords as Record<string, unknown>)
        : [];
  if (entries.length === 0) {
    throw new ConfigurationError(option, 'must be a password or a non-empty { id: password } map');
  }
  const derived: Record<string, string> = {};
  for (const [id, password] of entries) {
    if (!/^[1-9][0-9]{0,8}$/u.test(id)) {
      throw new ConfigurationError(option, 'ids must be positive integers');
    }
    if (typeof password !== 'string' || password.length < 32) {
      throw new ConfigurationError(option, 'each password needs at least 32 characters');
    }
    const key = hkdfSync('sha256', password, '', PURPOSE, 32);
    derived[id] = Buffer.from(key).toString('base64url');
  }
  return derived;
}

/** The cookie's name: `__Host-oauth2` over TLS, `oauth2` in insecure development. @internal */
export function transactionCookieName(secure: boolean): string {
  return secure ? '__Host-oauth2' : 'oauth2';
}

/**
 * The `Set-Cookie` value of the transaction cookie: `HttpOnly`, `SameSite=Lax` (the
 * callback is a top-level cross-site GET from the provider, which Lax allows and
 * Strict would not), `Path=/`, `Secure` unless insecure development, never a `Domain`.
 *
 * @internal
 */
export function transactionCookie(
  settings: TransactionCookieSettings,
  value: string,
  maxAgeSeconds: number,
): string {
  const parts = [
    `${transactionCookieName(settings.secure)}=${value}`,
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Lax',
  ];
  if (settings.secure) parts.push('Secure');
  if (maxAgeSeconds <= 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  return parts.join('; ');
}

/**
 * Seals the pending transactions (newest first) into a `Set-Cookie` value: expired
 * ones are dropped, at most `maxPending` are kept, and the oldest go first when the
 * seal would not fit in a cookie. No transaction left: the cookie is deleted.
 * `kept` tells how many made it.
 *
 * @internal
 */
export async function writeTransactions(
  settings: TransactionCookieSettings,
  transactions: readonly LoginTransaction[],
): Promise<{ readonly setCookie: string; readonly kept: number }> {
  const now = settings.clock();
  let kept = transactions.filter((t) => !isExpired(settings, t, now)).slice(0, settings.maxPending);
  const { sealData } = await loadIron();
  while (kept.length > 0) {
    const sealed = await sealData(
      { v: VERSION, t: kept.map(encode) },
      { password: settings.passwords, ttl: settings.ttlSeconds },
    );
    if (sealed.length <= MAX_SEAL) {
      return {
        setCookie: transactionCookie(settings, sealed, settings.ttlSeconds),
        kept: kept.length,
      };
    }
    kept = kept.slice(0, -1);
  }
  return { setCookie: transactionCookie(settings, '', 0), kept: 0 };
}

/**
 * Opens the transaction cookie: the pending transactions (newest first, expired ones
 * included: the caller tells "expired" from "unknown"), or `undefined` when the cookie
 * is tampered, truncated, sealed with an unknown password, past iron's own expiry or
 * of the wrong shape. Never throws.
 *
 * @internal
 */
export async function readTransactions(
  settings: TransactionCookieSettings,
  value: string,
): Promise<LoginTransaction[] | undefined> {
  if (value.length > MAX_SEAL || !SEAL.test(value)) return undefined;
  let data: unknown;
  try {
    const { unsealData } = await loadIron();
    data = await unsealData(value, { password: settings.passwords, ttl: settings.ttlSeconds });
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const record = data as Record<string, unknown>;
  if (!Object.hasOwn(record, 'v') || record['v'] !== VERSION) return undefined;
  const list = Object.hasOwn(record, 't') ? record['t'] : undefined;
  if (!Array.isArray(list) || list.length === 0 || list.length > 10) return undefined;
  const transactions: LoginTransaction[] = [];
  for (const item of list) {
    const transaction = decode(item);
    if (transaction === undefined) return undefined;
    transactions.push(transaction);
  }
  return transactions;
}

/** Whether a transaction is past its lifetime. @internal */
export function isExpired(
  settings: TransactionCookieSettings,
  transaction: LoginTransaction,
  now: number,
): boolean {
  return now >= transaction.createdAt + settings.ttlSeconds * 1000;
}

function encode(t: LoginTransaction): Record<string, unknown> {
  return {
    id: t.id,
    r: t.registrationId,
    i: t.issuer,
    s: t.state,
    p: t.pkceVerifier,
    n: t.nonce ?? null,
    g: t.returnTarget,
    c: t.createdAt,
  };
}

function decode(item: unknown): LoginTransaction | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
  const o = item as Record<string, unknown>;
  const get = (key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);
  const [id, r, i, s, p, n, g, c] = ['id', 'r', 'i', 's', 'p', 'n', 'g', 'c'].map(get);
  if (typeof id !== 'string' || !ID.test(id)) return undefined;
  if (typeof r !== 'string' || !REGISTRATION_ID.test(r)) return undefined;
  if (!isText(i, 2048) || !isText(s, 512) || !isText(p, 512)) return undefined;
  if (n !== null && !isText(n, 512)) return undefined;
  if (!isText(g, 2048) || !g.startsWith('/')) return undefined;
  if (typeof c !== 'number' || !Number.isFinite(c)) return undefined;
  return {
    id,
    registrationId: r,
    issuer: i,
    state: s,
    pkceVerifier: p,
    nonce: n ?? undefined,
    returnTarget: g,
    createdAt: c,
  };
}

function isText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}
