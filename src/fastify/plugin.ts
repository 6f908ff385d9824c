import type { FastifyInstance, FastifyPluginCallback, FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { SecurityContext } from '../core/context.js';
import { ConfigurationError } from '../core/errors.js';
import { SecurityTransform, type SecurityOutcome } from '../transform/index.js';
import { isPromiseLike } from '../lib/promise.js';
import { viewOf } from '../http/find-request.js';
import { mergeVary } from '../lib/vary.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The user portcullis authenticated, or `null` (anonymous). */
    user: AuthenticatedUser | null;
  }
}

/** Options of the {@link security} Fastify plugin. */
export interface SecurityPluginOptions {
  /** The pipeline to run in an `onRequest` hook for every request. */
  readonly transform: SecurityTransform;
}

/**
 * Fastify plugin running a {@link SecurityTransform} in an `onRequest` hook, before
 * body parsing: denials are answered there (400, 401, redirect, 403); allowed
 * requests carry `request.user` and the `SecurityContext` through every later hook
 * and the handler. Registered without encapsulation, so it covers the routes of the
 * instance it is registered on and its children.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { security } from 'portcullis/fastify';
 * const app = Fastify();
 * await app.register(security, { transform });
 * app.get('/profile', (request) => request.user?.username);
 * ```
 */
export const security: FastifyPluginCallback<SecurityPluginOptions> = Object.assign(
  function portcullisFastify(
    fastify: FastifyInstance,
    options: SecurityPluginOptions,
    done: (error?: Error) => void,
  ): void {
    const transform = options.transform as unknown;
    if (!(transform instanceof SecurityTransform)) {
      done(new ConfigurationError('transform', 'must be a SecurityTransform'));
      return;
    }
    fastify.decorateRequest('user', null);
    fastify.addHook('onRequest', (request, reply, next) => {
      let outcome: SecurityOutcome | Promise<SecurityOutcome>;
      try {
        outcome = transform.handle(toSecurityRequest(request));
      } catch (error) {
        next(error as Error);
        return;
      }
      const apply = (result: SecurityOutcome): void => {
        if (!result.proceed) {
          const { status, headers, body } = result.response;
          void reply.code(status).headers(headers).send(body);
          return;
        }
        request.user = result.user;
        if (result.headers) {
          for (const [name, value] of Object.entries(result.headers)) {
            const existing = name === 'vary' ? reply.getHeader('vary') : undefined;
            reply.header(name, existing === undefined ? value : mergeVary(String(existing), value));
          }
        }
        SecurityContext.run(result.user, () => {
          next();
        });
      };
      if (isPromiseLike(outcome)) Promise.resolve(outcome).then(apply, next);
      else apply(outcome);
    });
    // Fastify runs body parsing in an AsyncResource of the request, so the context
    // entered here holds through parsing into the handler (tested).
    done();
  },
  {
    [Symbol.for('skip-override')]: true,
    [Symbol.for('fastify.display-name')]: 'portcullis',
  },
);

function toSecurityRequest(request: FastifyRequest) {
  // Fastify's own `url` may be rewritten by a prefix; the raw URL is what the client sent.
  return viewOf({ kind: 'node', request: request.raw }, undefined, request.protocol === 'https');
}
