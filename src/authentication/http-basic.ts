/**
 * Parsing of HTTP Basic credentials (RFC 7617) from an `Authorization` header value.
 *
 * @module portcullis
 */

/** The default of {@link ParseBasicCredentialsOptions.maxHeaderLength}: 8 KiB. */
export const DEFAULT_MAX_BASIC_HEADER_LENGTH = 8192;

/** Why an `Authorization: Basic …` header was refused. */
export type BasicCredentialsFailureReason = 'malformed-credentials' | 'credentials-too-large';

/** The outcome of {@link parseBasicCredentials} for a header that uses the Basic scheme. */
export type BasicCredentialsResult =
  | { readonly ok: true; readonly username: string; readonly password: string }
  | { readonly ok: false; readonly reason: BasicCredentialsFailureReason };

/** Options of {@link parseBasicCredentials}. */
export interface ParseBasicCredentialsOptions {
  /**
   * The longest `Authorization` header value accepted, in characters; a longer
   * Basic header is refused with `credentials-too-large` before it is decoded.
   * @defaultValue `8192`
   */
  readonly maxHeaderLength?: number;
}

/** RFC 4648 §4 base64 with the standard alphabet and mandatory padding. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/u;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/u;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const MALFORMED: BasicCredentialsResult = Object.freeze({
  ok: false,
  reason: 'malformed-credentials',
});
const TOO_LARGE: BasicCredentialsResult = Object.freeze({
  ok: false,
  reason: 'credentials-too-large',
});

/**
 * Parses the value of an `Authorization` header as HTTP Basic credentials
 * (RFC 7617 §2, RFC 7235 §2.1).
 *
 * - `null`: there is no header, or it uses another scheme (e.g. `Bearer`); not a failure.
 * - `{ ok: false, reason }`: a Basic header that cannot be trusted; `reason` is
 *   `credentials-too-large` for a value longer than `maxHeaderLength` (checked before
 *   decoding) or `malformed-credentials` for: no token, a token that is not canonical
 *   base64 with padding (`Buffer.from(x, 'base64')` would silently skip such garbage),
 *   bytes that are not valid UTF-8, no `:`, an empty user-id, or a control character
 *   in the user-id. Two `Authorization` headers joined by `, ` are malformed too.
 * - `{ ok: true, username, password }`: the user-id is everything before the *first*
 *   `:`, the password everything after (it may contain `:`, may be empty, and is not
 *   checked for control characters). Neither is Unicode-normalized.
 *
 * The scheme name is case-insensitive; spaces or tabs around the token are tolerated.
 *
 * @example
 * ```ts
 * import { parseBasicCredentials } from 'portcullis';
 * parseBasicCredentials('Basic YWxhZGRpbjpvcGVuc2VzYW1l');
 * // { ok: true, username: 'aladdin', password: 'opensesame' }
 * ```
 */
export function parseBasicCredentials(
  headerValue: unknown,
  options: ParseBasicCredentialsOptions = {},
): BasicCredentialsResult | null {
  if (headerValue === undefined || headerValue === null) return null;
  // A header that is not a string can only come from a faulty adapter: fail closed.
  if (typeof headerValue !== 'string') return MALFORMED;
  const start = skipWhitespace(headerValue, 0);
  if (!isBasicScheme(headerValue, start)) return null;
  if (headerValue.length > (options.maxHeaderLength ?? DEFAULT_MAX_BASIC_HEADER_LENGTH)) {
    return TOO_LARGE;
  }
  const token = headerValue.slice(
    skipWhitespace(headerValue, start + 5),
    trailingWhitespaceStart(headerValue),
  );
  if (token === '' || !BASE64.test(token)) return MALFORMED;
  const bytes = Buffer.from(token, 'base64');
  // Reject non-zero padding bits: only the canonical encoding of the bytes is accepted.
  if (bytes.toString('base64') !== token) return MALFORMED;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return MALFORMED;
  }
  const colon = text.indexOf(':');
  if (colon <= 0) return MALFORMED;
  const username = text.slice(0, colon);
  if (CONTROL.test(username)) return MALFORMED;
  return { ok: true, username, password: text.slice(colon + 1) };
}

function skipWhitespace(value: string, index: number): number {
  let i = index;
  while (i < value.length && (value[i] === ' ' || value[i] === '\t')) i++;
  return i;
}

function trailingWhitespaceStart(value: string): number {
  let end = value.length;
  while (end > 0 && (value[end - 1] === ' ' || value[end - 1] === '\t')) end--;
  return end;
}

/** Whether the value has the token `basic` (any case) at `start`, followed by whitespace or its end. */
function isBasicScheme(value: string, start: number): boolean {
  if (value.slice(start, start + 5).toLowerCase() !== 'basic') return false;
  const next = value[start + 5];
  return next === undefined || next === ' ' || next === '\t';
}
