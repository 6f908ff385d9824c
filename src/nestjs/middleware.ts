import { SecurityContext } from '../core/context.js';
import { isPromiseLike } from '../lib/promise.js';
import type { SecurityOutcome } from '../transform/index.js';
import { httpAnswers } from './http-answers.js';
import type { NestSettings } from './options.js';
import { recordUser, securityView } from './request.js';

/** A Nest functional middleware (Express's `req`/`res`, or the node ones under Fastify). */
export type NestMiddlewareFunction = (
  request: object,
  response: unknown,
  next: (error?: unknown) => void,
) => void | Promise<void>;

/**
 * The module's middleware, for every route: the HTTP adapters' pipeline (firewall,
 * authentication, the URL rules when given) once per request, before Nest's routing;
 * the rest of the request (guards, pipes, the handler or the resolvers) runs with the
 * user in the `SecurityContext` (unless `securityContext: false`). A refusal is thrown as Nest's HTTP exception, for
 * Nest's exception filters to answer.
 *
 * @internal
 */
export function securityMiddleware(settings: NestSettings): NestMiddlewareFunction {
  const { transform, securityContext } = settings;
  return function portcullisNest(request, response, next) {
    const view = securityView(request);
    if (view === undefined) {
      next();
      return undefined;
    }
    const apply = (outcome: SecurityOutcome): void => {
      if (!outcome.proceed) throw httpAnswers(response).refuse(outcome.response);
      recordUser(request, outcome.user);
      if (!securityContext) next();
      else {
        SecurityContext.run(outcome.user, () => {
          next();
        });
      }
    };
    const outcome = transform.handle(view);
    // Nest's middleware proxy hands a thrown (or rejected) exception to its filters.
    if (isPromiseLike(outcome)) return Promise.resolve(outcome).then(apply);
    apply(outcome);
    return undefined;
  };
}
