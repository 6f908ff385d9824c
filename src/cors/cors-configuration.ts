import type { SecurityRequest } from '../core/request.js';
import type { SecurityResponse } from '../core/security.js';
import { resolveCorsOptions, type CorsConfig, type CorsOptions } from './cors-options.js';

/** `scheme://host[:port]`, as browsers send `Origin` (RFC 6454 §7). */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#@\\]+$/iu;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u;
const VARY = 'Origin';
const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';

/**
 * Whether a request is a CORS preflight: `OPTIONS` with `Origin` and
 * `Access-Control-Request-Method` (Fetch standard §3.2.2). A browser sends it
 * without credentials, before a cross-origin request that is not "simple".
 *
 * @example
 * ```ts
 * import { isPreflightRequest } from 'portcullis';
 * if (isPreflightRequest(request)) …
 * ```
 */
export function isPreflightRequest(request: SecurityRequest): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.header('origin') !== undefined &&
    request.header('access-control-request-method') !== undefined
  );
}

/**
 * Cross-origin resource sharing (the Fetch standard's CORS protocol), after Spring's
 * `CorsConfiguration` and `DefaultCorsProcessor`, applied by the `SecurityTransform`
 * before authentication: a preflight is answered at once (204 with the CORS headers
 * when the origin, method and headers are allowed, 403 without them otherwise,
 * never a 401: a preflight carries no credentials), and every other response,
 * portcullis' own 401 and 403 included, carries `Access-Control-Allow-Origin` (and
 * the rest) when its `Origin` is allowed, and `Vary: Origin` always.
 *
 * CORS relaxes the same-origin policy for the listed origins; it protects nothing
 * by itself, and it is no CSRF defence (the session's CSRF check is).
 *
 * @example
 * ```ts
 * import { CorsConfiguration, SecurityTransform } from 'portcullis';
 * const transform = new SecurityTransform().configCors({
 *   allowedOrigins: ['https://app.example.com', 'https://*.preview.example.com'],
 *   allowedMethods: ['GET', 'POST', 'PUT', 'DELETE'],
 *   allowCredentials: true,
 * });
 * ```
 */
export class CorsConfiguration {
  readonly #config: CorsConfig;

  /** @throws ConfigurationError for an unknown or invalid option */
  constructor(options: CorsOptions) {
    this.#config = resolveCorsOptions(options);
    Object.freeze(this);
  }

  /**
   * The answer to a preflight ({@link isPreflightRequest}): 204 with
   * `Access-Control-Allow-*` when allowed, 403 without them when the origin, the
   * method or one of the requested headers is not.
   */
  preflight(request: SecurityRequest): SecurityResponse {
    const config = this.#config;
    const origin = this.#allowedOrigin(request);
    const method = request.header('access-control-request-method')?.trim() ?? '';
    const requested = requestedHeaders(request.header('access-control-request-headers'));
    if (
      origin === undefined ||
      !TOKEN.test(method) ||
      (config.methods !== null && !config.methods.has(method)) ||
      requested === undefined ||
      (config.headers !== null && requested.some((name) => !config.headers?.has(name)))
    ) {
      return {
        status: 403,
        headers: {
          vary: PREFLIGHT_VARY,
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-store',
        },
        body: 'Invalid CORS request',
      };
    }
    const headers: Record<string, string> = {
      vary: PREFLIGHT_VARY,
      'access-control-allow-origin': origin,
      'access-control-allow-methods': config.methods === null ? method : config.methodList,
      'access-control-max-age': String(config.maxAge),
    };
    if (requested.length > 0) headers['access-control-allow-headers'] = requested.join(', ');
    if (config.credentials) headers['access-control-allow-credentials'] = 'true';
    return { status: 204, headers, body: '' };
  }

  /**
   * The CORS headers of the response to a request that is not a preflight:
   * `Vary: Origin`, and `Access-Control-Allow-Origin` (with `-Credentials` and
   * `-Expose-Headers` as configured) when its `Origin` is allowed.
   */
  responseHeaders(request: SecurityRequest): Readonly<Record<string, string>> {
    const origin = this.#allowedOrigin(request);
    if (origin === undefined) return VARY_ONLY;
    const config = this.#config;
    const headers: Record<string, string> = {
      vary: VARY,
      'access-control-allow-origin': origin,
    };
    if (config.credentials) headers['access-control-allow-credentials'] = 'true';
    if (config.exposedHeaders !== '') {
      headers['access-control-expose-headers'] = config.exposedHeaders;
    }
    return headers;
  }

  /** The `Access-Control-Allow-Origin` value for the request, or `undefined` when not allowed. */
  #allowedOrigin(request: SecurityRequest): string | undefined {
    const values = request.headerValues('origin');
    const origin = values.length === 1 ? values[0]?.trim() : undefined;
    if (origin === undefined || !ORIGIN.test(origin)) return undefined;
    const config = this.#config;
    if (config.anyOrigin) return '*';
    const lower = origin.toLowerCase();
    return config.allowsOrigin(lower) ? origin : undefined;
  }
}

const VARY_ONLY: Readonly<Record<string, string>> = Object.freeze({ vary: VARY });

/** The lower-case names of `Access-Control-Request-Headers`, or `undefined` when malformed. */
function requestedHeaders(value: string | undefined): string[] | undefined {
  if (value === undefined) return [];
  const names: string[] = [];
  for (const part of value.split(',')) {
    const name = part.trim().toLowerCase();
    if (name === '') continue;
    if (!TOKEN.test(name)) return undefined;
    names.push(name);
  }
  return names;
}
