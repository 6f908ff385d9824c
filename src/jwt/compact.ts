/**
 * The shape of a compact JWS (RFC 7515 §7.1): three segments of unpadded base64url
 * (§2), the header and payload non-empty, joined by dots. Nothing else: no
 * whitespace, no `=` padding, no `+` or `/` of standard base64, and no spare bits
 * set in a segment's last character.
 */
const SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/u;

/** The base64url alphabet: a character's index is its 6-bit value. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Whether `token` is a compact JWS spelled the one way its bytes can be spelled:
 * the base64url alphabet only (no padding, RFC 7515 §2), and each segment in its
 * canonical form (a length a byte string can have, the unused low bits of its last
 * character zero).
 *
 * Base64 decoders skip whitespace and ignore padding and spare bits, so without
 * this check the segments `ab\tQ`, `abQ=` and `abR` would decode as `abQ` does (the
 * same two bytes): one token, many spellings, each a miss of anything keyed by the token
 * (the verified-token cache) and each a "new" token to a log or a deny list. A
 * token that fails this check is malformed before anything is decoded.
 *
 * @internal
 */
export function isCompactJws(token: string): boolean {
  return SHAPE.test(token) && token.split('.').every(isCanonical);
}

/** Whether a segment of base64url characters is canonical base64url. */
function isCanonical(segment: string): boolean {
  const length = segment.length;
  if (length === 0) return true;
  const spare = length % 4;
  if (spare === 1) return false; // six bits: not a whole byte
  if (spare === 0) return true;
  const last = ALPHABET.indexOf(segment.charAt(length - 1));
  // Two characters carry one byte (4 spare bits), three carry two (2 spare bits).
  return (last & (spare === 2 ? 0b1111 : 0b11)) === 0;
}
