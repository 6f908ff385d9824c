/**
 * The example's account routes, for a logged-in user (any of HTTP Basic, a bearer
 * token or the session cookie; the URL rules require authentication):
 *
 * - `POST /account/password` `{ "currentPassword", "newPassword" }`: checks the
 *   current password again, stores the new one (a compare-and-set in the user
 *   repository), announces the change through the authenticator's `userChanged` (so
 *   every instance drops the user's cached credential at once), then logs the user
 *   out everywhere: every session, every refresh-token family and every access token
 *   of the user issued until now are revoked, this request's included. The client
 *   logs in again with the new password. 200 `{ "passwordChanged": true }`; 403
 *   when the current password is wrong; 409 when the password changed meanwhile.
 * - `POST /logout/everywhere` `{}`: revokes every session, refresh-token family and
 *   access token of the user, on every instance; 200 `{ "loggedOutEverywhere": true }`
 *   and the session cookie deleted.
 *
 * A store that cannot answer gives 503 with `Retry-After` (the router maps
 * `UnavailableError`); a session-authenticated POST passes the session's CSRF check first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PasswordEncoder, RepositoryAuthenticator } from 'portcullis';
import type { JwtTokenService } from 'portcullis/jwt';
import { userOf, toSecurityRequest } from 'portcullis/node';
import type { SessionAuthenticator } from 'portcullis/session';
import type { ExampleStores } from './stores.js';

/** The largest JSON body read. */
const MAX_BODY = 8 * 1024;
/** New passwords: at least this long (NIST SP 800-63B §5.1.1.2: at least 8). */
const MIN_PASSWORD = 8;
/** New passwords: at most this long (bounds the hashing work). */
const MAX_PASSWORD = 256;

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** What the account routes need. */
export interface AccountRoutesOptions {
  readonly authenticator: RepositoryAuthenticator;
  readonly users: ExampleStores['users'];
  readonly encoder: PasswordEncoder;
  readonly sessions: SessionAuthenticator;
  readonly tokens: JwtTokenService;
}

/** The two routes, by `METHOD path`. */
export function createAccountRoutes(options: AccountRoutesOptions): Record<string, Handler> {
  const { authenticator, users, encoder, sessions, tokens } = options;
  const logOutEverywhere = async (username: string): Promise<void> => {
    await Promise.all([sessions.logOutEverywhere(username), tokens.revokeUser(username)]);
  };
  return {
    'POST /account/password': async (req, res) => {
      const username = requireUser(req);
      const body = await readJson(req, res);
      if (body === undefined) return;
      const { currentPassword, newPassword } = body;
      if (
        typeof newPassword !== 'string' ||
        newPassword.length < MIN_PASSWORD ||
        newPassword.length > MAX_PASSWORD
      ) {
        json(res, 400, {
          error: 'invalid_new_password',
          error_description: `newPassword must have ${MIN_PASSWORD} to ${MAX_PASSWORD} characters`,
        });
        return;
      }
      // The stored user (with its encoded password) when the current password is right.
      const user = await authenticator.verifyCredentials(username, currentPassword, {
        request: toSecurityRequest(req),
        authenticationMethod: 'password',
      });
      if (user === null) {
        json(res, 403, { error: 'invalid_current_password' });
        return;
      }
      const updated = await users.updatePassword(user, await encoder.encode(newPassword));
      if (updated === null) {
        json(res, 409, { error: 'password_changed_meanwhile' });
        return;
      }
      // Every instance forgets the old password's cached verification, then every
      // credential issued until now ends.
      await authenticator.userChanged(username);
      await logOutEverywhere(username);
      json(res, 200, { passwordChanged: true }, await sessions.logOut(req));
    },
    'POST /logout/everywhere': async (req, res) => {
      const username = requireUser(req);
      // A JSON body (`{}`): a cross-site form cannot send one without a CORS
      // preflight, so a browser's cached HTTP Basic credentials cannot be made to
      // log the user out from another site (session cookies have their CSRF check).
      if ((await readJson(req, res)) === undefined) return;
      await logOutEverywhere(username);
      json(res, 200, { loggedOutEverywhere: true }, await sessions.logOut(req));
    },
  };
}

function requireUser(req: IncomingMessage): string {
  const user = userOf(req);
  // The URL rules keep anonymous requests out.
  if (user === null) throw new Error('the account routes need an authenticated user');
  return user.username;
}

function json(res: ServerResponse, status: number, body: unknown, setCookie?: string): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    ...(setCookie === undefined ? {} : { 'set-cookie': setCookie }),
  });
  res.end(JSON.stringify(body));
}

/** The JSON object of the body; answers 415 / 413 / 400 itself and returns `undefined`. */
async function readJson(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Record<string, unknown> | undefined> {
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    json(res, 415, { error: 'invalid_request', error_description: 'Send application/json' });
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) {
      res.setHeader('connection', 'close');
      json(res, 413, { error: 'invalid_request', error_description: 'Body too large' });
      return undefined;
    }
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    json(res, 400, { error: 'invalid_request', error_description: 'Expected a JSON object' });
    return undefined;
  }
  return body as Record<string, unknown>;
}
