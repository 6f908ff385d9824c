import type { AuthenticationFailureReason } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import { parseBasicCredentials } from './http-basic.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/u;

/** Credentials read from a request or a form, or why they cannot be checked. @internal */
export type CredentialInput =
  | { readonly ok: true; readonly username: string; readonly password: string }
  | { readonly ok: false; readonly reason: AuthenticationFailureReason };

/**
 * The HTTP Basic credentials of a request: `null` without a Basic header (anonymous),
 * else the parsed credentials or the reason they are refused.
 *
 * @internal
 */
export function basicInput(
  request: SecurityRequest,
  maxHeaderLength: number,
): CredentialInput | null {
  return parseBasicCredentials(request.header('authorization'), { maxHeaderLength });
}

/**
 * A username and password from elsewhere than a Basic header (a form, a JSON body):
 * non-strings, an empty username or one with control characters are
 * `malformed-credentials`; more than `maxLength` characters in total
 * `credentials-too-large`.
 *
 * @internal
 */
export function formInput(
  username: unknown,
  password: unknown,
  maxLength: number,
): CredentialInput {
  if (typeof username !== 'string' || typeof password !== 'string') {
    return { ok: false, reason: 'malformed-credentials' };
  }
  if (username.length + password.length > maxLength) {
    return { ok: false, reason: 'credentials-too-large' };
  }
  if (username === '' || CONTROL.test(username)) {
    return { ok: false, reason: 'malformed-credentials' };
  }
  return { ok: true, username, password };
}
