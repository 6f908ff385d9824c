import type { SecurityRequest } from '../core/request.js';
import type { SessionSettings } from './config.js';
import { checkOrigin, verifyToken, type CsrfFailure } from './csrf.js';

/**
 * Why an unsafe request that a session cookie would authenticate fails the CSRF
 * checks, if it does: not from the application's own (or a trusted) origin, a header
 * token that is not the session's, or no token where one is needed (no browser
 * metadata, or a `text/plain` body).
 *
 * @internal
 */
export function csrfFailure(
  settings: SessionSettings,
  keys: ReadonlyMap<string, Buffer>,
  request: SecurityRequest,
  sid: string,
): CsrfFailure | undefined {
  const origin = checkOrigin(settings, request);
  if (origin !== undefined && origin !== null) return origin;
  const token = request.header(settings.csrfHeaderName);
  if (token !== undefined) return verifyToken(keys, sid, token) ? undefined : 'invalid-token';
  const type = request.header('content-type')?.split(';', 1)[0]?.trim().toLowerCase();
  // No browser metadata (a non-browser client, an old browser), or a text/plain body
  // (what a cross-site form can send, e.g. to a GraphQL endpoint): the token decides.
  if (origin === null || type === 'text/plain') return 'missing-token';
  return undefined;
}
