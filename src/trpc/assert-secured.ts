import type { AnyTRPCRouter } from '@trpc/server';
import { ConfigurationError } from '../core/errors.js';
import { guardRules } from './guard-middleware.js';
import { metaMiddlewares, ruleOfAuth } from './security-meta.js';
import { metaRateLimits } from './rate-limited.js';
import type { Rule } from './rule.js';

/** Options of {@link assertSecured}. */
export interface AssertSecuredOptions {
  /**
   * Accept lazy sub-routers (`lazy(() => import(...))`), which cannot be checked
   * before they load: check each one's module with its own `assertSecured`.
   * @defaultValue `false`: an unloaded lazy router is reported
   */
  readonly allowLazy?: boolean;
}

/** The name tRPC gives the middleware that `.input()` adds. */
const INPUT_MIDDLEWARE = 'inputValidatorMiddleware';

interface ProcedureDef {
  readonly middlewares?: readonly unknown[];
  readonly meta?: { readonly auth?: unknown; readonly rateLimit?: unknown };
}

/**
 * Checks at start-up that every procedure of a router is secured, so that a
 * forgotten annotation is a definition error rather than an open procedure. A
 * procedure is secured when its middlewares include a portcullis guard
 * (`permitAll()` counts: it is an explicit decision) or when it has `meta.auth`
 * and {@link securityMeta} runs for it. Every `meta.auth` is compiled now, so a bad
 * expression fails here, with its column. Also reported: `meta.auth` on a
 * procedure that `securityMeta()` does not run for (the annotation would be
 * ignored), and a rule reading `args` that runs before `.input()` (it would never
 * see the input).
 *
 * @throws ConfigurationError (`option` `router`) listing every problem by procedure path
 *
 * @example
 * ```ts
 * export const appRouter = t.router({ ... });
 * assertSecured(appRouter);
 * ```
 */
export function assertSecured(router: AnyTRPCRouter, options: AssertSecuredOptions = {}): void {
  const def = (router as Partial<AnyTRPCRouter> | null)?._def;
  if (typeof def?.procedures !== 'object') {
    throw new ConfigurationError('router', 'must be a tRPC router (t.router({ ... }))');
  }
  const problems: string[] = [];
  for (const [path, procedure] of Object.entries(def.procedures as Record<string, unknown>)) {
    const procedureDef = (procedure as { _def?: ProcedureDef } | null)?._def ?? {};
    problems.push(...check(path, procedureDef));
  }
  const lazy = Object.keys((def as { lazy?: object }).lazy ?? {});
  if (lazy.length > 0 && options.allowLazy !== true) {
    problems.push(...lazy.map((path) => `${path}: lazy router not loaded, cannot be checked`));
  }
  if (problems.length > 0) {
    throw new ConfigurationError('router', `procedures not secured:\n  ${problems.join('\n  ')}`);
  }
}

/**
 * Whether a procedure carries portcullis security: a guard among its middlewares
 * (`permitAll()` included), or `securityMeta()`. The check of each call that
 * `createTrpcContext` makes (cached per procedure).
 *
 * @internal
 */
export function isSecuredProcedure(procedure: unknown): boolean {
  if (typeof procedure !== 'function' && (typeof procedure !== 'object' || procedure === null)) {
    return false;
  }
  let secured = checked.get(procedure);
  if (secured === undefined) {
    const def = (procedure as { _def?: ProcedureDef })._def ?? {};
    secured = (def.middlewares ?? []).some(
      (fn) => typeof fn === 'function' && (guardRules.has(fn) || metaMiddlewares.has(fn)),
    );
    checked.set(procedure, secured);
  }
  return secured;
}

const checked = new WeakMap<object, boolean>();

function check(path: string, def: ProcedureDef): string[] {
  const middlewares = (def.middlewares ?? []).map((fn) => (typeof fn === 'function' ? fn : null));
  const inputAt = middlewares.findIndex((fn) => fn?.name === INPUT_MIDDLEWARE);
  const metaAt = middlewares.findIndex((fn) => fn !== null && metaMiddlewares.has(fn));
  const problems: string[] = [];
  const rules: [at: number, rule: Rule | null][] = [];
  middlewares.forEach((fn, at) => {
    const rule = fn === null ? undefined : guardRules.get(fn);
    if (rule !== undefined) rules.push([at, rule]);
  });
  const auth = def.meta?.auth;
  if (auth === undefined) {
    if (rules.length === 0) problems.push('no guard and no meta.auth');
  } else {
    if (metaAt === -1) problems.push('has meta.auth but securityMeta() does not run for it');
    try {
      rules.push([metaAt, ruleOfAuth(auth)]);
    } catch (error) {
      problems.push(`invalid meta.auth (${error instanceof Error ? error.message : 'unknown'})`);
    }
  }
  if (def.meta?.rateLimit !== undefined) {
    if (metaAt === -1) problems.push('has meta.rateLimit but securityMeta() does not run for it');
    try {
      metaRateLimits(def.meta.rateLimit);
    } catch (error) {
      problems.push(
        `invalid meta.rateLimit (${error instanceof Error ? error.message : 'unknown'})`,
      );
    }
  }
  for (const [at, rule] of rules) {
    if (rule?.usesArgs === true && at !== -1 && inputAt !== -1 && at < inputAt) {
      problems.push(`${rule.description} reads args but runs before .input()`);
    }
  }
  return problems.map((problem) => `${path}: ${problem}`);
}
