import type { Readable } from 'node:stream';
import type {
  FastifyInstance,
  FastifyPluginCallback,
  FastifyReply,
  FastifyRequest,
  HTTPMethods,
} from 'fastify';
import { ConfigurationError } from '../core/errors.js';
import type { SecurityRoutes } from '../core/routes.js';
import type { SecurityResponse } from '../core/security.js';
import { nodeBodyReader } from '../http/body.js';
import { viewOf } from '../http/find-request.js';
import { answerOf, checkRoutes, type MountedRoutes } from '../http/response.js';

/** Options of the {@link securityRoutes} Fastify plugin. */
export interface SecurityRoutesPluginOptions {
  /**
   * The routes: `formLogin()`, `formLogout()` (`portcullis/session`), `oauth2Login()`
   * (`portcullis/oauth2`), `tokenEndpoints()` (`portcullis/jwt`).
   */
  readonly routes: readonly SecurityRoutes[];
}

/** Every method but `OPTIONS` (left to CORS), for routes that answer 405 themselves. */
const EVERY_METHOD: readonly string[] = ['DELETE', 'GET', 'PATCH', 'POST', 'PUT'];

/**
 * Fastify plugin registering {@link SecurityRoutes} as Fastify routes: each path (its
 * `{name}` variables as `:name`) for the methods the routes answer (`methods`, else
 * every method but `OPTIONS`, so the routes' own 405s come out). The plugin is
 * encapsulated: inside it, the body is handed to the routes unparsed, so the limits
 * (413 without reading the rest, `Connection: close`), the media types (415) and
 * every answer are the same as with node and Fetch; the throttles count the socket's
 * address (`trustedProxies` on the `LoginThrottle` decides whether `X-Forwarded-For`
 * is read, not Fastify's `trustProxy`); the application's own content-type parsers
 * are not affected. A request the routes pass on (a path below a registered
 * pattern they do not own) gets the application's not-found handler.
 *
 * Register `security` first, with a `permitAll` rule for the routes' `paths`.
 *
 * @example
 * ```ts
 * import { security, securityRoutes } from 'portcullis/fastify';
 * await app.register(security, { transform });
 * await app.register(securityRoutes, {
 *   routes: [formLogin({ sessions, credentials }), formLogout({ sessions }), tokenEndpoints({ authenticator, tokens, users })],
 * });
 * app.get('/login', (request, reply) => reply.type('text/html').send(loginPage()));
 * ```
 */
export const securityRoutes: FastifyPluginCallback<SecurityRoutesPluginOptions> = Object.assign(
  function portcullisSecurityRoutes(
    fastify: FastifyInstance,
    options: SecurityRoutesPluginOptions,
    done: (error?: Error) => void,
  ): void {
    let mounted: MountedRoutes;
    let urls: Map<string, Set<string>>;
    try {
      const given = (options as Partial<SecurityRoutesPluginOptions> | undefined)?.routes;
      if (!Array.isArray(given)) {
        throw new ConfigurationError('routes', 'must be an array of SecurityRoutes');
      }
      mounted = checkRoutes(given);
      urls = fastifyRoutes(mounted.routes);
    } catch (error) {
      done(error as Error);
      return;
    }
    // The stream itself is the body: the routes read it, up to their limit.
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', (_request, payload, parsed) => {
      parsed(null, payload);
    });
    const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      // Fastify's own `url` may be rewritten by a prefix; the raw request is what the client sent.
      const view = viewOf(
        { kind: 'node', request: request.raw },
        undefined,
        request.protocol === 'https',
      );
      const body = request.body as Readable | undefined;
      const response = await answerOf(mounted, view, nodeBodyReader(body));
      if (response === undefined) {
        reply.callNotFound();
        return reply;
      }
      return send(reply, response);
    };
    for (const [url, methods] of urls) {
      // Fastify 4.0's types take only its own method names (4.x later and 5: any string).
      fastify.route({ method: [...methods] as HTTPMethods[], url, handler });
    }
    done();
  },
  { [Symbol.for('fastify.display-name')]: 'portcullis-security-routes' },
);

/** The Fastify URL of each path of the routes, with the methods to register on it. */
function fastifyRoutes(routes: readonly SecurityRoutes[]): Map<string, Set<string>> {
  const urls = new Map<string, Set<string>>();
  for (const route of routes) {
    const methods = route.methods ?? EVERY_METHOD;
    for (const path of route.paths) {
      const url = path.replace(/\{([A-Za-z_$][A-Za-z0-9_$]*)\}/gu, ':$1');
      if (!url.startsWith('/') || /[{}*?]/u.test(url)) {
        throw new ConfigurationError(
          'routes',
          `the path ${JSON.stringify(path)} is no Fastify route`,
        );
      }
      const set = urls.get(url) ?? new Set<string>();
      for (const method of methods) set.add(method.toUpperCase());
      urls.set(url, set);
    }
  }
  return urls;
}

/** Writes a portcullis response with the reply: each cookie its own `Set-Cookie` line. */
function send(reply: FastifyReply, response: SecurityResponse): FastifyReply {
  if (response.status === 413) void reply.header('connection', 'close');
  for (const cookie of response.cookies ?? []) void reply.header('set-cookie', cookie);
  void reply.code(response.status).headers(response.headers);
  // An empty body is none: no Content-Type added to a redirect.
  return response.body === '' ? reply.send() : reply.send(response.body);
}
