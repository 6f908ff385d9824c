import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { SecurityOutcome, SecurityTransform } from '../transform/index.js';
import { isPromiseLike } from '../lib/promise.js';
import { writeNodeResponse } from '../http/response.js';
import { mergeVary } from '../lib/vary.js';
import { enterContext, type SecuredRequest } from './context.js';
import { toSecurityRequest } from './request.js';

/** A Connect/Express middleware. */
export type ConnectMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/**
 * Connect/Express middleware running a {@link SecurityTransform}: firewall,
 * authentication, authorization. A denied request is answered here (400, 401,
 * redirect or 403); an allowed one continues with `req.user` set, {@link userOf}
 * and the `SecurityContext` filled for the rest of the request.
 *
 * Mount it before the routes it protects (and, for Express, at the application
 * level: rules see `req.originalUrl`, the full path).
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { security } from 'portcullis/node';
 * const app = express();
 * app.use(security(transform));
 * app.get('/profile', (req, res) => res.send(userOf(req)?.username));
 * ```
 */
export function security(transform: SecurityTransform): ConnectMiddleware {
  return function portcullisSecurity(req, res, next) {
    run(
      transform,
      req,
      res,
      () => {
        next();
      },
      next,
    );
  };
}

/**
 * Wraps a plain node `http` request handler (`http.createServer(handler)`, tRPC's
 * standalone adapter, graphql-http) with a {@link SecurityTransform}. The handler
 * gets the request typed with its `user`.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { withSecurity } from 'portcullis/node';
 * createServer(withSecurity(transform, (req, res) => {
 *   res.end(`hello ${req.user?.username ?? 'anonymous'}`);
 * })).listen(3000, '127.0.0.1');
 * ```
 */
export function withSecurity(
  transform: SecurityTransform,
  handler: (req: SecuredRequest, res: ServerResponse) => void | Promise<void>,
): RequestListener {
  return function portcullisHandler(req, res) {
    run(
      transform,
      req,
      res,
      () => {
        try {
          const result = handler(req as SecuredRequest, res);
          if (isPromiseLike(result)) {
            Promise.resolve(result).catch(() => {
              internalError(res);
            });
          }
        } catch {
          internalError(res);
        }
      },
      () => {
        internalError(res);
      },
    );
  };
}

function run(
  transform: SecurityTransform,
  req: IncomingMessage,
  res: ServerResponse,
  proceed: () => void,
  fail: (error: unknown) => void,
): void {
  let outcome: SecurityOutcome | Promise<SecurityOutcome>;
  try {
    outcome = transform.handle(toSecurityRequest(req));
  } catch (error) {
    fail(error);
    return;
  }
  const apply = (result: SecurityOutcome): void => {
    if (result.proceed) {
      if (result.headers) addHeaders(res, result.headers);
      enterContext(req, result.user, proceed);
    } else writeNodeResponse(res, result.response);
  };
  if (isPromiseLike(outcome)) Promise.resolve(outcome).then(apply, fail);
  else apply(outcome);
}

/**
 * Sets the outcome's headers (CORS) before the handler runs, so the handler can
 * still override one; `Vary` is merged with what earlier middleware set.
 */
function addHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'vary') {
      const existing = res.getHeader('vary');
      res.setHeader(
        'vary',
        mergeVary(existing === undefined ? undefined : String(existing), value),
      );
    } else res.setHeader(name, value);
  }
}

function internalError(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = 500;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.end('Internal Server Error');
}
