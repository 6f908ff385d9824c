import { deadlineExceeded } from '../../core/deadline.js';
import { UnavailableError } from '../../core/errors.js';
import { summarize } from '../../core/events.js';
import type { SecurityRequest } from '../../core/request.js';
import type { SecurityResponse } from '../../core/security.js';
import { User } from '../../core/user.js';
import { OAuth2Error, type OAuth2ErrorCode } from '../errors.js';
import type { RoutesSettings } from './options.js';
import { asOAuth2Error, failure, plain, redirect } from './responses.js';
import { currentUrl, queryOf, repeatedParameter, sameText } from './request.js';
import { awaitStore, failClosed } from '../../stores/call.js';
import { withDeadline } from '../../lib/deadline.js';
import {
  isExpired,
  readTransactions,
  transactionCookie,
  transactionCookieName,
  writeTransactions,
  type LoginTransaction,
} from '../transaction.js';
import type { OAuth2ClientLike, OAuth2LoginResult } from '../types.js';
import { throttledCallback, type SettledCallback } from './throttle.js';

/**
 * `GET {callbackPath}{registrationId}`: finds the browser's pending transaction of the
 * callback's `state` and consumes it at once (it leaves the cookie and its id is
 * remembered as spent), checks it was made for this registration and issuer, lets the
 * client validate the response and exchange the code, maps the provider's user and
 * starts a fresh session (303 to the saved target). Any failure: no session, the
 * transaction gone, a 303 to `loginUrl?error=oauth2`. Counted by the routes'
 * throttle first: a throttled address is refused before the cookie is opened.
 *
 * @internal
 */
export function finishLogin(
  settings: RoutesSettings,
  client: OAuth2ClientLike,
  registrationId: string,
  request: SecurityRequest,
): Promise<SecurityResponse> {
  return throttledCallback(settings, request, () =>
    callback(settings, client, registrationId, request),
  );
}

async function callback(
  settings: RoutesSettings,
  client: OAuth2ClientLike,
  registrationId: string,
  request: SecurityRequest,
): Promise<SettledCallback> {
  const cookie = settings.cookie;
  const raw = request.cookies.get(transactionCookieName(cookie.secure));
  const clear = [transactionCookie(cookie, '', 0)];
  const refuse = (code: OAuth2ErrorCode, message: string, cookies = clear): SettledCallback =>
    failed(failure(settings, request, new OAuth2Error(code, message), cookies));
  if (raw === undefined || raw === '') {
    return refuse('ERR_OAUTH2_TRANSACTION', 'No login transaction is pending', []);
  }
  const pending = await readTransactions(cookie, raw);
  if (pending === undefined) {
    return refuse('ERR_OAUTH2_TRANSACTION', 'The login transaction cookie is invalid');
  }
  const query = queryOf(request);
  if (repeatedParameter(query) !== undefined) {
    return refuse('ERR_OAUTH2_INVALID_RESPONSE', 'A callback parameter is repeated');
  }
  const state = query.get('state');
  const index = state === null ? -1 : pending.findIndex((t) => sameText(t.state, state));
  const transaction = pending[index];
  if (transaction === undefined) {
    return refuse('ERR_OAUTH2_STATE', 'The state is missing or of no pending login');
  }
  // Consumed now, whatever happens next: the other pending logins stay.
  const { setCookie: rest } = await writeTransactions(
    cookie,
    pending.filter((_, i) => i !== index),
  );
  const fail = (error: OAuth2Error): SettledCallback =>
    failed(failure(settings, request, error, [rest], transaction.returnTarget));
  let refused: string | undefined;
  try {
    refused = await check(settings, client, registrationId, transaction, request);
  } catch (error) {
    if (error instanceof UnavailableError) return unavailable(error, rest);
    throw error;
  }
  if (refused !== undefined) return fail(new OAuth2Error('ERR_OAUTH2_TRANSACTION', refused));

  let result: OAuth2LoginResult;
  try {
    result = await client.handleCallback(currentUrl(request), {
      state: transaction.state,
      pkceVerifier: transaction.pkceVerifier,
      nonce: transaction.nonce,
    });
  } catch (error) {
    return fail(asOAuth2Error(error, 'ERR_OAUTH2_INVALID_RESPONSE', 'The callback was refused'));
  }
  let sessionCookie: string;
  let username: string;
  try {
    const ms = settings.mapperTimeoutMs;
    const mapped = Promise.resolve().then(() =>
      settings.mapper(result.user, { registrationId, tokens: result.tokens, request }),
    );
    const user = await withDeadline(mapped, ms, () =>
      deadlineExceeded('oauth2-mapper', ms, settings.events, request),
    );
    if (!(user instanceof User)) {
      return fail(new OAuth2Error('ERR_OAUTH2_USER_REFUSED', 'The application refused the user'));
    }
    username = user.username;
    sessionCookie = await settings.sessions.logIn(user);
  } catch (error) {
    if (error instanceof UnavailableError) return unavailable(error, rest);
    return fail(asOAuth2Error(error, 'ERR_OAUTH2_USER_REFUSED', 'The user could not be logged in'));
  }
  publishSuccess(settings, request, username);
  return {
    outcome: redirect(303, transaction.returnTarget, [rest, sessionCookie]),
    result: 'matched',
  };
}

/** A refused callback: it stays counted by the throttle. */
function failed(outcome: SecurityResponse): SettledCallback {
  return { outcome, result: 'failed' };
}

/** Fail closed: nobody is logged in; the spent transaction's cookie is dropped; not counted. */
function unavailable(error: UnavailableError, rest: string): SettledCallback {
  return {
    outcome: {
      ...plain(503, 'Service Unavailable', { 'retry-after': String(error.retryAfter) }),
      cookies: [rest],
    },
    result: 'unchecked',
  };
}

/**
 * Why a matched transaction may not be completed here, if it may not. Rejects with
 * an `UnavailableError` when the spent-transaction store cannot answer.
 */
async function check(
  settings: RoutesSettings,
  client: OAuth2ClientLike,
  registrationId: string,
  transaction: LoginTransaction,
  request: SecurityRequest,
): Promise<string | undefined> {
  const cookie = settings.cookie;
  if (isExpired(cookie, transaction, cookie.clock())) return 'The login transaction expired';
  // Spent on the first matching attempt, whether it then succeeds or not, on every
  // instance sharing the store.
  const expiresAt = transaction.createdAt + cookie.ttlSeconds * 1000;
  const { spent, spentSite } = settings;
  const first: unknown = await awaitStore(
    spentSite,
    () => spent.spend(transaction.id, expiresAt),
    request,
  );
  if (first !== true && first !== false) {
    throw failClosed(spentSite, new TypeError('spend answered outside its contract'));
  }
  if (!first) return 'The login transaction was already used';
  // A callback for one provider replayed at another one's route.
  if (transaction.registrationId !== registrationId || transaction.issuer !== client.issuer) {
    return 'The login transaction belongs to another provider';
  }
  return undefined;
}

function publishSuccess(
  settings: RoutesSettings,
  request: SecurityRequest,
  username: string,
): void {
  try {
    if (settings.events.hasListeners) {
      settings.events.publish({
        type: 'authentication-success',
        username,
        authenticationMethod: 'oauth2',
        request: summarize(request),
      });
    }
  } catch {
    // A faulty custom publisher must not break the request.
  }
}
