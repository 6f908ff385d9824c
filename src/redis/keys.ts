import { createHash } from 'node:crypto';
import { ConfigurationError } from '../core/errors.js';

/** Inputs longer than this many UTF-8 bytes are hashed (SHA-256) in keys. @internal */
const MAX_RAW_BYTES = 192;

/**
 * Encodes an id or a username as one key part that no input can break out of:
 * base64url (no `:`, `{`, `}` or space), tagged by how it was made so the forms
 * cannot collide — `v` UTF-8 bytes of a well-formed string, `u` UTF-16 code units
 * of one with lone surrogates (whose UTF-8 form would merge with U+FFFD), `h` the
 * SHA-256 of a long input (its length stays bounded).
 *
 * @internal
 */
export function encodeKeyPart(value: string): string {
  let bytes = Buffer.from(value, 'utf8');
  // A string that does not survive the round trip has lone surrogates.
  const wellFormed = bytes.toString('utf8') === value;
  if (!wellFormed) bytes = Buffer.from(value, 'utf16le');
  if (bytes.length > MAX_RAW_BYTES) {
    return `h${createHash('sha256')
      .update(wellFormed ? 'v' : 'u')
      .update(bytes)
      .digest('base64url')}`;
  }
  return `${wellFormed ? 'v' : 'u'}${bytes.toString('base64url')}`;
}

/** Checks the key prefix: a `{` or `}` in it would move the Redis Cluster hash tag. @internal */
export function requirePrefix(prefix: unknown): string {
  if (typeof prefix !== 'string' || prefix === '' || prefix.length > 64) {
    throw new ConfigurationError('prefix', 'must be a string of 1 to 64 characters');
  }
  if (/[{}\s]/u.test(prefix)) {
    throw new ConfigurationError('prefix', 'must not contain braces or white space');
  }
  return prefix;
}

/**
 * The kinds of record, each a short tag in the key:
 * `fam` a refresh-token family, `ru` a refresh-token user revocation,
 * `s` / `su` a session / session-user revocation, `t` / `tu` an access-token /
 * access-token-user revocation, `sp` a spent id, `th` a throttle or rate-limit counter.
 *
 * @internal
 */
export type KeyKind = 'fam' | 'ru' | 's' | 'su' | 't' | 'tu' | 'sp' | 'th';

/**
 * The key of a record: `<prefix>{<kind>:<encoded id>}` (+ `:<suffix>`). The braces
 * are a Redis Cluster hash tag: every key of one record (and so of one script)
 * hashes to one slot.
 *
 * @internal
 */
export function recordKey(prefix: string, kind: KeyKind, id: string, suffix?: string): string {
  const key = `${prefix}{${kind}:${encodeKeyPart(id)}}`;
  return suffix === undefined ? key : `${key}:${suffix}`;
}

/** The TTL in milliseconds for a record kept until `expiresAtMs`: at least 1 ms. @internal */
export function ttlMs(expiresAtMs: number, nowMs: number): number {
  if (!Number.isFinite(expiresAtMs)) throw new RangeError('expiresAtMs must be a finite number');
  return Math.max(1, Math.ceil(expiresAtMs - nowMs));
}
