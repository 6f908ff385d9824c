import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import { ConfigurationError } from '../core/errors.js';
import { nodeBodyReader } from '../jwt/token-routes-body.js';
import type { TokenEndpoints } from '../jwt/token-routes.js';
import { nodeRequestView } from '../http/request-views.js';

/** Options of the {@link portcullisTokenEndpoints} Fastify plugin. */
export interface PortcullisTokenEndpointsOptions {
  /** The routes, from `tokenEndpoints()` of `portcullis/jwt`. */
  readonly endpoints: TokenEndpoints;
}

/** Every method but `OPTIONS` (left to CORS): the routes answer 405 to all but `POST`. */
const METHODS = ['DELETE', 'GET', 'PATCH', 'POST', 'PUT'] as const;

/**
 * Fastify plugin registering the token endpoints (`tokenEndpoints()` of
 * `portcullis/jwt`) as routes: `POST loginPath` and `POST refreshPath`, other methods
 * 405. The plugin is encapsulated: inside it, the body is handed to the endpoints
 * unparsed, so the limit (`maxBodyBytes`, 413 without reading the rest), the media
 * types (415) and the RFC 6749 error answers (429 `slow_down` with `Retry-After` when a
 * login throttle refuses) are the same as with node and Fetch; the throttles count
 * the socket's address (`trustedProxies` on the `LoginThrottle` decides whether
 * `X-Forwarded-For` is read, not Fastify's `trustProxy`); the application's own
 * content-type parsers are not affected.
 *
 * Register `portcullis` first with a `permitAll` rule for `endpoints.paths`.
 *
 * @example
 * ```ts
 * import { security, portcullisTokenEndpoints } from 'portcullis/fastify';
 * const endpoints = tokenEndpoints({ authenticator, tokens, users });
 * await app.register(security, { transform });
 * await app.register(portcullisTokenEndpoints, { endpoints });
 * ```
 */
export const portcullisTokenEndpoints: FastifyPluginCallback<PortcullisTokenEndpointsOptions> =
  Object.assign(
    function portcullisTokenEndpointsPlugin(
      fastify: FastifyInstance,
      options: PortcullisTokenEndpointsOptions,
      done: (error?: Error) => void,
    ): void {
      const endpoints = options.endpoints as Partial<TokenEndpoints> | undefined;
      if (typeof endpoints?.handle !== 'function' || !Array.isArray(endpoints.paths)) {
        done(new ConfigurationError('endpoints', 'must be the result of tokenEndpoints()'));
        return;
      }
      const { handle } = endpoints as TokenEndpoints;
      // The stream itself is the body: the endpoints read it, up to their limit.
      fastify.removeAllContentTypeParsers();
      fastify.addContentTypeParser('*', (_request, payload, parsed) => {
        parsed(null, payload);
      });
      const handler = async (
        request: FastifyRequest,
        reply: FastifyReply,
      ): Promise<FastifyReply> => {
        const security = nodeRequestView(request.raw, undefined, request.protocol === 'https');
        const body = request.body as Readable | undefined;
        const response = await handle(security, nodeBodyReader(body));
        // A path Fastify routed here that the endpoints do not own (under a prefix).
        if (response === undefined) {
          reply.callNotFound();
          return reply;
        }
        if (response.status === 413) void reply.header('connection', 'close');
        return reply.code(response.status).headers(response.headers).send(response.body);
      };
      for (const url of (endpoints as TokenEndpoints).paths) {
        fastify.route({ method: [...METHODS], url, handler });
      }
      done();
    },
    { [Symbol.for('fastify.display-name')]: 'portcullis-token-endpoints' },
  );
