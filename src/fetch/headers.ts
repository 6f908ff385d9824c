import { SecurityHeaders, applyToHeaders, type SecurityHeadersOptions } from '../headers/index.js';
import { editHeaders } from '../http/response.js';
import { userOf, setCspNonce } from './context.js';

/**
 * Wraps a Fetch handler so its responses carry the security headers
 * ({@link SecurityHeaders}; helmet 8's set by default). Headers the handler set
 * win; `Cache-Control: no-store` is added to responses to authenticated requests
 * that set none. The handler reads its CSP nonce with `getCspNonce(request)`.
 *
 * @example
 * ```ts
 * import { withSecurity, withSecurityHeaders } from 'portcullis/fetch';
 * export default { fetch: withSecurityHeaders(withSecurity(transform, handler)) };
 * ```
 */
export function withSecurityHeaders<Args extends unknown[]>(
  handler: (request: Request, ...args: Args) => Response | Promise<Response>,
  options: SecurityHeaders | SecurityHeadersOptions = {},
): (request: Request, ...args: Args) => Promise<Response> {
  const headers = options instanceof SecurityHeaders ? options : new SecurityHeaders(options);
  return async function portcullisSecurityHeaders(request, ...args) {
    const applied = headers.forRequest();
    if (applied.nonce !== undefined) setCspNonce(request, applied.nonce);
    const response = await handler(request, ...args);
    return decorate(headers, applied, request, response);
  };
}

/** Applies headers to a response, copying it when its headers are immutable. @internal */
export function decorate(
  headers: SecurityHeaders,
  applied: ReturnType<SecurityHeaders['forRequest']>,
  request: Request,
  response: Response,
): Response {
  const target = editHeaders(response, (target) => {
    applyToHeaders(target, applied);
  });
  const cacheControl = headers.cacheControlFor(
    userOf(request) !== null,
    target.headers.has('cache-control'),
  );
  if (cacheControl !== undefined) target.headers.set('cache-control', cacheControl);
  return target;
}
