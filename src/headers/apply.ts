import { headerColumns, type SecurityHeadersForRequest } from './security-headers.js';

/**
 * What {@link applySecurityHeaders} needs of a response: Node's `ServerResponse`,
 * Express and Connect responses fit as they are.
 */
export interface HeaderTarget {
  setHeader(name: string, value: string): unknown;
  removeHeader(name: string): unknown;
}

/**
 * What {@link applyToHeaders} needs: the Fetch API's `Headers` (Node, Bun, Deno,
 * Hono, Next.js) fits as it is.
 */
export interface HeadersLike {
  has(name: string): boolean;
  set(name: string, value: string): void;
  delete(name: string): void;
}

/**
 * Sets a response's security headers on a Node-style response and removes
 * `X-Powered-By`. Call it before the handler runs, as helmet does, so a handler can
 * still override a header for its own response.
 *
 * @example
 * ```ts
 * const securityHeaders = new SecurityHeaders();
 * http.createServer((req, res) => {
 *   const applied = securityHeaders.forRequest();
 *   applySecurityHeaders(res, applied);
 *   res.end(`<script nonce="${applied.nonce}">…</script>`);
 * });
 * ```
 */
export function applySecurityHeaders(
  target: HeaderTarget,
  applied: SecurityHeadersForRequest,
): void {
  for (const name of applied.removed) target.removeHeader(name);
  const columns = headerColumns(applied);
  if (columns === undefined) {
    for (const [name, value] of applied.headers) target.setHeader(name, value);
    return;
  }
  const { names, values } = columns;
  for (let i = 0; i < names.length; i++) target.setHeader(names[i] as string, values[i] as string);
}

/** Options of {@link applyToHeaders}. */
export interface ApplyToHeadersOptions {
  /**
   * Replace a header the handler already set. By default the handler's value wins,
   * as it does with helmet, where the handler runs after the headers are set.
   * @defaultValue `false`
   */
  readonly overwrite?: boolean;
}

/**
 * Applies a response's security headers to a Fetch `Headers` after the handler
 * made its response, and removes `X-Powered-By`. Headers the handler set are kept
 * unless `overwrite` is set. The headers must be mutable: a `Response` from
 * `fetch()` or `Response.redirect()` has immutable headers and must be copied first
 * (`new Response(res.body, res)`).
 *
 * @example
 * ```ts
 * const applied = securityHeaders.forRequest();
 * const response = await handler(request, applied.nonce);
 * applyToHeaders(response.headers, applied);
 * ```
 */
export function applyToHeaders(
  target: HeadersLike,
  applied: SecurityHeadersForRequest,
  options: ApplyToHeadersOptions = {},
): void {
  const overwrite = options.overwrite === true;
  for (const name of applied.removed) target.delete(name);
  for (const [name, value] of applied.headers) {
    if (overwrite || !target.has(name)) target.set(name, value);
  }
}
