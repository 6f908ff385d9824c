import type { FastifyInstance, FastifyPluginCallback } from 'fastify';
import { SecurityHeaders, type SecurityHeadersOptions } from '../headers/index.js';

declare module 'fastify' {
  interface FastifyReply {
    /** This response's CSP nonce, when the policy uses `SecurityHeaders.nonce`. */
    cspNonce: string | undefined;
  }
}

/** Options of the {@link securityHeaders} plugin: a {@link SecurityHeaders} or its options. */
export interface SecurityHeadersPluginOptions {
  readonly headers?: SecurityHeaders | SecurityHeadersOptions;
}

/**
 * Fastify plugin setting the security headers ({@link SecurityHeaders}; helmet 8's
 * set by default) in an `onRequest` hook, so handlers can override a header, and
 * `Cache-Control: no-store` on responses to authenticated requests that set none.
 *
 * @example
 * ```ts
 * import { security, securityHeaders } from 'portcullis/fastify';
 * await app.register(securityHeaders);
 * await app.register(security, { transform });
 * app.get('/', (request, reply) => reply.type('text/html').send(`<script nonce="${reply.cspNonce}">…`));
 * ```
 */
export const securityHeaders: FastifyPluginCallback<SecurityHeadersPluginOptions> = Object.assign(
  function portcullisFastifyHeaders(
    fastify: FastifyInstance,
    options: SecurityHeadersPluginOptions,
    done: (error?: Error) => void,
  ): void {
    let headers: SecurityHeaders;
    try {
      const given = options.headers ?? {};
      headers = given instanceof SecurityHeaders ? given : new SecurityHeaders(given);
    } catch (error) {
      done(error as Error);
      return;
    }
    fastify.decorateReply('cspNonce', undefined);
    fastify.addHook('onRequest', (_request, reply, next) => {
      const applied = headers.forRequest();
      for (const name of applied.removed) reply.removeHeader(name);
      for (const [name, value] of applied.headers) reply.header(name, value);
      reply.cspNonce = applied.nonce;
      next();
    });
    if (headers.cacheControl !== undefined) {
      fastify.addHook('onSend', (request, reply, payload, next) => {
        const user = (request as { user?: unknown }).user;
        const value = headers.cacheControlFor(
          user !== null && user !== undefined,
          reply.hasHeader('cache-control'),
        );
        if (value !== undefined) reply.header('cache-control', value);
        next(null, payload);
      });
    }
    done();
  },
  {
    [Symbol.for('skip-override')]: true,
    [Symbol.for('fastify.display-name')]: 'portcullis-headers',
  },
);
