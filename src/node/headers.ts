import type {
  IncomingMessage,
  OutgoingHttpHeaders,
  RequestListener,
  ServerResponse,
} from 'node:http';
import {
  SecurityHeaders,
  applySecurityHeaders,
  type SecurityHeadersOptions,
} from '../headers/index.js';
import { userOf } from './context.js';
import type { ConnectMiddleware } from './security.js';

const nonces = new WeakMap<ServerResponse, string>();

/**
 * The CSP nonce of this response, when the policy uses `SecurityHeaders.nonce`
 * (also on `res.locals.cspNonce` for Express templates).
 */
export function getCspNonce(res: ServerResponse): string | undefined {
  return nonces.get(res);
}

/**
 * Connect/Express middleware that sets the security headers ({@link SecurityHeaders};
 * helmet 8's set by default) before the handler runs, so a handler can still
 * override one, and adds `Cache-Control: no-store` to responses to authenticated
 * requests whose handler set none.
 *
 * @example
 * ```ts
 * import { securityHeaders, security } from 'portcullis/node';
 * app.use(securityHeaders());
 * app.use(security(transform));
 * ```
 */
export function securityHeaders(
  options: SecurityHeaders | SecurityHeadersOptions = {},
): ConnectMiddleware {
  const headers = options instanceof SecurityHeaders ? options : new SecurityHeaders(options);
  return function portcullisSecurityHeaders(req, res, next) {
    apply(headers, req, res);
    next();
  };
}

/**
 * Wraps a plain node `http` request handler with the security headers.
 *
 * @example
 * ```ts
 * createServer(withSecurityHeaders(withSecurity(transform, handler))).listen(3000, '127.0.0.1');
 * ```
 */
export function withSecurityHeaders(
  handler: RequestListener,
  options: SecurityHeaders | SecurityHeadersOptions = {},
): RequestListener {
  const headers = options instanceof SecurityHeaders ? options : new SecurityHeaders(options);
  return function portcullisSecurityHeaders(req, res) {
    apply(headers, req, res);
    handler(req, res);
  };
}

function apply(headers: SecurityHeaders, req: IncomingMessage, res: ServerResponse): void {
  const applied = headers.forRequest();
  applySecurityHeaders(res, applied);
  if (applied.nonce !== undefined) {
    nonces.set(res, applied.nonce);
    const locals = (res as ServerResponse & { locals?: unknown }).locals;
    if (typeof locals === 'object' && locals !== null) {
      (locals as Record<string, unknown>)['cspNonce'] = applied.nonce;
    }
  }
  if (headers.cacheControl !== undefined) addCacheControlOnWrite(headers, req, res);
}

/** Adds `Cache-Control` when the head is written, once the handler had its say. */
function addCacheControlOnWrite(
  headers: SecurityHeaders,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with `this` below
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    res.writeHead = writeHead;
    const value = headers.cacheControlFor(
      userOf(req) !== null,
      this.hasHeader('cache-control') || passesCacheControl(args),
    );
    if (value !== undefined) this.setHeader('cache-control', value);
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  };
}

/** Whether `writeHead(status, [message,] headers)` passes a Cache-Control itself. */
function passesCacheControl(args: unknown[]): boolean {
  const given: unknown = args.find((arg) => typeof arg === 'object' && arg !== null);
  const isCacheControl = (name: unknown): boolean =>
    typeof name === 'string' && name.toLowerCase() === 'cache-control';
  if (Array.isArray(given)) {
    const list = given as unknown[];
    return list.some((entry, i) =>
      Array.isArray(entry) ? isCacheControl(entry[0]) : i % 2 === 0 && isCacheControl(entry),
    );
  }
  return given !== undefined && Object.keys(given as OutgoingHttpHeaders).some(isCacheControl);
}
