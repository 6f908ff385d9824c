import { randomBytes } from 'node:crypto';
import type { SecurityRequest } from '../../core/request.js';
import type { SecurityResponse } from '../../core/security.js';
import { OAuth2Error } from '../errors.js';
import type { RoutesSettings } from './options.js';
import { asOAuth2Error, failure, plain, redirect } from './responses.js';
import { safeRedirectTarget as sameOriginTarget } from '../../http/redirect.js';
import { queryOf } from './request.js';
import {
  readTransactions,
  transactionCookieName,
  writeTransactions,
  type LoginTransaction,
} from '../transaction.js';
import type { OAuth2ClientLike } from '../types.js';

/** The longest return target kept (a longer one gives the default target: the cookie must fit). */
const MAX_TARGET = 1024;

/**
 * `GET {authorizationPath}{registrationId}`: asks the client for a fresh authorization
 * URL (state, PKCE verifier, nonce), adds the transaction to the browser's sealed
 * transaction cookie (the other pending logins stay, up to `maxPendingLogins`) and
 * redirects (302) to the provider. The return target is the `continue` parameter
 * when it is a same-origin path, else the default target.
 *
 * @internal
 */
export async function startLogin(
  settings: RoutesSettings,
  client: OAuth2ClientLike,
  registrationId: string,
  request: SecurityRequest,
): Promise<SecurityResponse> {
  const targets = queryOf(request).getAll(settings.targetParameter);
  if (targets.length > 1) return plain(400, 'Bad Request');
  const target = sameOriginTarget(targets[0], settings.defaultTarget);
  const returnTarget = target.length > MAX_TARGET ? settings.defaultTarget : target;
  let authorization: Awaited<ReturnType<OAuth2ClientLike['authorizationUrl']>>;
  try {
    authorization = await client.authorizationUrl();
    checkAuthorization(client, authorization);
  } catch (error) {
    const typed = asOAuth2Error(error, 'ERR_OAUTH2_DISCOVERY', 'The login could not be started');
    return failure(settings, request, typed, [], returnTarget);
  }
  const [url, state, pkceVerifier, nonce] = authorization;
  const cookie = settings.cookie;
  const raw = request.cookies.get(transactionCookieName(cookie.secure));
  const pending = raw === undefined || raw === '' ? [] : await readTransactions(cookie, raw);
  const transaction: LoginTransaction = {
    id: randomBytes(16).toString('base64url'),
    registrationId,
    issuer: client.issuer,
    state,
    pkceVerifier,
    nonce,
    returnTarget,
    createdAt: cookie.clock(),
  };
  const { setCookie, kept } = await writeTransactions(cookie, [transaction, ...(pending ?? [])]);
  if (kept === 0) {
    // Only with absurdly long issuers or client values: say so now, not at the callback.
    const error = new OAuth2Error(
      'ERR_OAUTH2_TRANSACTION',
      'The login transaction does not fit in a cookie',
    );
    return failure(settings, request, error, [], returnTarget);
  }
  return redirect(302, url.href, [setCookie]);
}

/** What the transaction cookie accepts back; anything else is a broken client. */
function checkAuthorization(
  client: OAuth2ClientLike,
  value: Awaited<ReturnType<OAuth2ClientLike['authorizationUrl']>>,
): void {
  const [url, state, verifier, nonce] = value;
  const text = (v: unknown): boolean => typeof v === 'string' && v.length > 0 && v.length <= 512;
  if (
    typeof client.issuer !== 'string' ||
    client.issuer.length === 0 ||
    client.issuer.length > 2048 ||
    !(url instanceof URL) ||
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    !text(state) ||
    !text(verifier) ||
    (nonce !== undefined && !text(nonce))
  ) {
    throw new OAuth2Error(
      'ERR_OAUTH2_INVALID_RESPONSE',
      'The client made an unusable authorization request',
    );
  }
}
