import type { SecurityRequest } from '../core/request.js';

/**
 * The headers the pipeline trusts as single, refused with `duplicate-header` when
 * they come more than once: `Authorization` (HTTP Basic, bearer tokens), `Host`
 * (the origin of redirects and of the CSRF check), `Origin` and `Sec-Fetch-Site`
 * (the CSRF check), `Content-Type` (which login form is read), `X-Requested-With`
 * (401 or a login redirect) and `X-CSRF-Token` (the session's CSRF token).
 * `Cookie` is not one: several `Cookie` lines are legal (RFC 9113 §8.2.3).
 */
export const SINGLE_VALUE_HEADERS: readonly string[] = Object.freeze([
  'authorization',
  'host',
  'origin',
  'sec-fetch-site',
  'content-type',
  'x-requested-with',
  'x-csrf-token',
]);

/**
 * Whether a header trusted as single came more than once: in more than one field
 * line (node adapters see each), or as a value holding a comma-separated list
 * (the Fetch API joins repeated lines with `, `; none of these headers has a list
 * grammar). For `Authorization`, a comma starts another credential unless what
 * follows it is an `auth-param` (`name=value`, RFC 9110 §11.4) of the same one:
 * `Basic a, Bearer b` is two credentials (a comma is not legal in a token68).
 *
 * @internal
 */
export function hasDuplicate(request: SecurityRequest, names: readonly string[]): boolean {
  for (const name of names) {
    // Repeated lines are joined by `, `: a value without a comma is one line of one member.
    const value = request.header(name);
    if (value === undefined || !value.includes(',')) continue;
    if (request.headerValues(name).length > 1 || countMembers(name, value) > 1) return true;
  }
  return false;
}

/** A token followed by `=`: an auth-param, or a list member that continues a credential. */
const AUTH_PARAM = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+[ \t]*=/u;

/** A media type's start, `type/subtype`: an unquoted multipart boundary may hold a comma (RFC 2046 §5.1.1). */
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+/u;

/** How many members a value holds, commas inside quoted strings aside. */
function countMembers(name: string, value: string): number {
  const credentials = name === 'authorization';
  const mediaType = name === 'content-type';
  let count = 0;
  for (const member of splitOutsideQuotes(value)) {
    const text = member.trim();
    if (text === '') continue;
    if (credentials && count > 0 && AUTH_PARAM.test(text)) continue;
    if (mediaType && count > 0 && !MEDIA_TYPE.test(text)) continue;
    count++;
  }
  return count;
}

function splitOutsideQuotes(value: string): string[] {
  const members: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (quoted && code === 0x5c) i++;
    else if (code === 0x22) quoted = !quoted;
    else if (code === 0x2c && !quoted) {
      members.push(value.slice(start, i));
      start = i + 1;
    }
  }
  members.push(value.slice(start));
  return members;
}
