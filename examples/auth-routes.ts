/**
 * The example's token endpoints: `POST /auth/login` (SPEC.md: a JSON username and
 * password checked against the in-memory store, answered with a bearer token) and
 * `POST /auth/refresh` (a rotated refresh token for a new pair).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MemoryAuthenticator, User } from 'portcullis';
import { toSecurityRequest } from 'portcullis/node';
import {
  JwtError,
  RefreshStoreFullError,
  toTokenResponse,
  type JwtTokenService,
  type TokenPair,
} from 'portcullis/jwt';

/** The largest JSON body the token endpoints read. */
const MAX_BODY = 8 * 1024;

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The two token routes, by `METHOD path`. */
export function createAuthRoutes(
  store: MemoryAuthenticator,
  tokens: JwtTokenService,
): Record<string, Handler> {
  const loadUser = (username: string): User | null => store.findUser(username);
  return {
    'POST /auth/login': async (req, res) => {
      const body = await readJson(req, res);
      if (body === undefined) return;
      const user = await store.verifyCredentials(body['username'], body['password'], {
        request: toSecurityRequest(req),
        authenticationMethod: 'password',
      });
      if (!user) {
        text(res, 401, 'Bad credentials\n');
        return;
      }
      let pair;
      try {
        pair = await tokens.generateTokenPair(user);
      } catch {
        text(res, 500, 'Token generation failed\n');
        return;
      }
      tokenResponse(res, pair);
    },
    'POST /auth/refresh': async (req, res) => {
      const body = await readJson(req, res);
      if (body === undefined) return;
      const refreshToken = body['refresh_token'];
      if (typeof refreshToken !== 'string') {
        text(res, 400, 'refresh_token is required\n');
        return;
      }
      try {
        const request = toSecurityRequest(req);
        tokenResponse(res, await tokens.refresh(refreshToken, loadUser, { request }));
      } catch (error) {
        if (error instanceof RefreshStoreFullError) {
          text(res, 503, 'Try again later\n');
        } else if (error instanceof JwtError && error.code !== 'ERR_JWT_SIGNING_FAILED') {
          text(res, 401, 'Invalid refresh token\n');
        } else {
          text(res, 500, 'Token generation failed\n');
        }
      }
    },
  };
}

function tokenResponse(res: ServerResponse, pair: TokenPair): void {
  res.writeHead(200, {
    'content-type': 'application/json',
    // RFC 6749 §5.1: token responses are never cached.
    'cache-control': 'no-store',
    pragma: 'no-cache',
  });
  res.end(JSON.stringify(toTokenResponse(pair)));
}

/** The JSON object of the body; answers 415 / 413 / 400 itself and returns `undefined`. */
async function readJson(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Record<string, unknown> | undefined> {
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    text(res, 415, 'Send application/json\n');
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) {
      // Answer at once and close the connection rather than read the rest.
      res.setHeader('connection', 'close');
      text(res, 413, 'Body too large\n');
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
    text(res, 400, 'Expected a JSON object\n');
    return undefined;
  }
  return body as Record<string, unknown>;
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
  });
  res.end(body);
}
