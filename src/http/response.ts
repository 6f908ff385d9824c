/**
 * Writing a {@link SecurityResponse} — a denial of the pipeline or the answer of a
 * route — to a node response or as a Fetch `Response`: one writer per adapter style,
 * each `Set-Cookie` value on its own header line.
 *
 * @internal
 */
import type { ServerResponse } from 'node:http';
import { ConfigurationError } from '../core/errors.js';
import type { SecurityRequest } from '../core/request.js';
import type { BodyReader, SecurityRoutes } from '../core/routes.js';
import type { SecurityResponse } from '../core/security.js';

/** 500 in plain text, without the cause (a bug, a client gone mid-body). @internal */
export const INTERNAL_SERVER_ERROR: SecurityResponse = Object.freeze({
  status: 500,
  headers: Object.freeze({
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
  }),
  body: 'Internal Server Error',
});

/** A status that carries no body (RFC 9110 §6.4.1, §15.3.6, §15.4.5). */
function bodiless(status: number): boolean {
  return status === 204 || status === 205 || status === 304;
}

/**
 * Writes a portcullis response to a node response: its headers, each cookie as its own
 * `Set-Cookie` line (after any an earlier middleware set), `Content-Length`, the body.
 * A 413 closes the connection, so the rest of the body is never read. When the
 * headers are gone already (or the socket is), the response is destroyed instead.
 *
 * @internal
 */
export function writeNodeResponse(res: ServerResponse, response: SecurityResponse): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  const cookies = response.cookies;
  if (cookies !== undefined && cookies.length > 0) res.appendHeader('set-cookie', [...cookies]);
  if (response.status === 413) res.setHeader('connection', 'close');
  if (bodiless(response.status)) {
    res.end(); // no body and no Content-Length (RFC 9110 §8.6)
    return;
  }
  res.setHeader('content-length', Buffer.byteLength(response.body));
  res.end(response.body);
}

/**
 * A portcullis response as a Fetch `Response`, each cookie as its own `Set-Cookie`
 * line. An empty body is no body (a redirect gets no `Content-Type`); a 204, 205 or
 * 304 has none either.
 *
 * @internal
 */
export function toFetchResponse(response: SecurityResponse): Response {
  const headers = new Headers(response.headers);
  for (const cookie of response.cookies ?? []) headers.append('set-cookie', cookie);
  const empty = bodiless(response.status) || response.body === '';
  return new Response(empty ? null : response.body, { status: response.status, headers });
}

/** Routes checked by a mount, each with the quick test of whether it may own a request. @internal */
export interface MountedRoutes {
  readonly routes: readonly SecurityRoutes[];
  /** Per route: `false` when the request's path or method is surely not one of its own. */
  readonly mayOwn: readonly ((request: SecurityRequest) => boolean)[];
}

/**
 * Checks the routes given to a mount (`securityRoutes(...routes)`): each must be a
 * {@link SecurityRoutes} (`paths` and `handle`). Returns them with the quick test of
 * their paths and methods, so that a request none of them owns costs no promise.
 *
 * @throws ConfigurationError (option `routes`) naming the argument that is not
 * @internal
 */
export function checkRoutes(routes: readonly unknown[]): MountedRoutes {
  routes.forEach((route, index) => {
    const candidate = route as Partial<SecurityRoutes> | null | undefined;
    if (
      typeof candidate?.handle !== 'function' ||
      !Array.isArray(candidate.paths) ||
      !candidate.paths.every((path) => typeof path === 'string')
    ) {
      throw new ConfigurationError(
        'routes',
        `item ${index + 1} must be SecurityRoutes (formLogin(), formLogout(), oauth2Login(), tokenEndpoints())`,
      );
    }
  });
  const checked = Object.freeze([...(routes as readonly SecurityRoutes[])]);
  return Object.freeze({ routes: checked, mayOwn: Object.freeze(checked.map(ownershipTest)) });
}

const VARIABLE = /\{[A-Za-z_][A-Za-z0-9_]*\}/u;

/**
 * What a route's `paths` and `methods` let a mount rule out before calling `handle`:
 * a literal path must be the request's path, a `{name}` variable stands for one
 * segment (possibly empty); a path with any other pattern syntax (`*`, `**`) rules
 * nothing out. Never stricter than a route's own `handle`.
 */
function ownershipTest(route: SecurityRoutes): (request: SecurityRequest) => boolean {
  const methods = route.methods === undefined ? undefined : new Set(route.methods);
  const literals = new Set<string>();
  const patterns: RegExp[] = [];
  let anyPath = false;
  for (const path of route.paths) {
    const parts = path.split(new RegExp(`(${VARIABLE.source})`, 'u'));
    const literalParts = parts.filter((_, i) => i % 2 === 0);
    if (literalParts.some((part) => /[*{}]/u.test(part))) anyPath = true;
    else if (parts.length === 1) literals.add(path);
    else {
      const source = parts
        .map((part, i) => (i % 2 === 1 ? '[^/]*' : part.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')))
        .join('');
      patterns.push(new RegExp(`^${source}$`, 'u'));
    }
  }
  return (request) => {
    if (methods !== undefined && !methods.has(request.method)) return false;
    if (anyPath) return true;
    const path = request.path;
    return literals.has(path) || patterns.some((pattern) => pattern.test(path));
  };
}

/**
 * The first answer of the mounted routes to a request: `undefined` (synchronously)
 * when none of them may own it, else a promise of the first answer, `undefined` when
 * none answered. A route that rejects (its body could not be read, or a bug) answers
 * 500.
 *
 * @internal
 */
export function answerOf(
  mounted: MountedRoutes,
  request: SecurityRequest,
  readBody: BodyReader,
): Promise<SecurityResponse | undefined> | undefined {
  const { routes, mayOwn } = mounted;
  let first = 0;
  while (first < routes.length && !(mayOwn[first] as (r: SecurityRequest) => boolean)(request)) {
    first++;
  }
  if (first === routes.length) return undefined;
  return answerFrom(mounted, first, request, readBody);
}

async function answerFrom(
  { routes, mayOwn }: MountedRoutes,
  first: number,
  request: SecurityRequest,
  readBody: BodyReader,
): Promise<SecurityResponse | undefined> {
  for (let i = first; i < routes.length; i++) {
    if (i !== first && !(mayOwn[i] as (r: SecurityRequest) => boolean)(request)) continue;
    let response: SecurityResponse | undefined;
    try {
      response = await (routes[i] as SecurityRoutes).handle(request, readBody);
    } catch {
      return INTERNAL_SERVER_ERROR;
    }
    if (response !== undefined) return response;
  }
  return undefined;
}

/**
 * `response` with `edit` applied to its headers; a response whose headers are
 * immutable (`fetch()` responses, `Response.redirect()`) is copied first.
 *
 * @internal
 */
export function editHeaders(response: Response, edit: (headers: Headers) => void): Response {
  try {
    edit(response.headers);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    edit(copy.headers);
    return copy;
  }
}
