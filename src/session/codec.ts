import { sealData, unsealData } from 'iron-session';
import type { SessionSettings } from './config.js';

/** The user as stored in a session. */
export interface StoredUser {
  readonly username: string;
  readonly roles: readonly string[];
  readonly authorities: readonly string[];
}

/** What a session cookie holds, unsealed. @internal */
export interface SessionState {
  /** The session id (128 random bits, base64url): revocation and CSRF tokens bind to it. */
  readonly sid: string;
  /** When the session was created (login, or the anonymous pre-login session), epoch ms. */
  readonly iat: number;
  /** The user, for an authenticated session. */
  readonly user: StoredUser | undefined;
}

const VERSION = 1;
/** iron-session's seal format marker: `<seal>~2`. */
const SEAL_SUFFIX = '~2';
const SEAL = /^Fe26\.2\*[0-9]{1,9}\*[A-Za-z0-9_*~-]+$/u;

/** Seals a session with the newest password; iron's own TTL is the session's lifetime. @internal */
export function seal(settings: SessionSettings, state: SessionState): Promise<string> {
  const data: Record<string, unknown> = { v: VERSION, sid: state.sid, iat: state.iat };
  data[settings.authenticatedKey] = state.user !== undefined;
  if (state.user !== undefined) {
    data[settings.userKey] = {
      username: state.user.username,
      roles: [...state.user.roles],
      authorities: [...state.user.authorities],
    };
  }
  return sealData(data, { password: settings.passwords, ttl: settings.maxAgeSeconds });
}

/**
 * Opens a session cookie: `undefined` for anything tampered, truncated, expired,
 * sealed with an unknown password or of the wrong shape (never throws).
 *
 * @internal
 */
export async function unseal(
  settings: SessionSettings,
  value: string,
): Promise<SessionState | undefined> {
  // Cheap shape checks first: garbage never reaches the crypto.
  if (value.length > 3800 || !value.endsWith(SEAL_SUFFIX) || !SEAL.test(value)) return undefined;
  let data: Record<string, unknown>;
  try {
    data = await unsealData<Record<string, unknown>>(value, {
      password: settings.passwords,
      ttl: settings.maxAgeSeconds,
    });
  } catch {
    return undefined;
  }
  return readState(settings, data);
}

function readState(
  settings: SessionSettings,
  data: Record<string, unknown>,
): SessionState | undefined {
  if (!Object.hasOwn(data, 'v') || data['v'] !== VERSION) return undefined;
  const { sid, iat } = data;
  if (typeof sid !== 'string' || !/^[A-Za-z0-9_-]{22}$/u.test(sid)) return undefined;
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return undefined;
  const authenticated = Object.hasOwn(data, settings.authenticatedKey)
    ? data[settings.authenticatedKey]
    : undefined;
  if (authenticated === false) return { sid, iat, user: undefined };
  if (authenticated !== true || !Object.hasOwn(data, settings.userKey)) return undefined;
  const user = readUser(data[settings.userKey]);
  return user === undefined ? undefined : { sid, iat, user };
}

function readUser(value: unknown): StoredUser | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const username = Object.hasOwn(record, 'username') ? record['username'] : undefined;
  const roles = Object.hasOwn(record, 'roles') ? record['roles'] : undefined;
  const authorities = Object.hasOwn(record, 'authorities') ? record['authorities'] : undefined;
  if (typeof username !== 'string' || username === '') return undefined;
  if (!isStringList(roles) || !isStringList(authorities)) return undefined;
  return { username, roles, authorities };
}

function isStringList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}
