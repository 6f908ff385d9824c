import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { deadlineExceeded } from '../core/deadline.js';
import type { SecurityEvents } from '../core/events.js';
import { withDeadline } from '../lib/deadline.js';
import { isPromiseLike } from '../lib/promise.js';
import type { CustomFunction } from './functions.js';
import type { MaybeAsyncCheck } from './logic.js';
import type { Check } from './rights.js';
import type { Resolve } from './values.js';

/**
 * Thrown (or rejected with) inside an evaluation when a custom function failed; the
 * top of `evaluate` turns it into a denial. One preallocated instance: nothing is
 * allocated to fail. Internal, so a plain `Error` and no `PortcullisError`: it never
 * escapes to users (both evaluators of `compile.ts` catch it and answer `false`; the
 * failure reaches users as the `expression-error` event).
 *
 * @internal
 */
export class EvaluationFailed extends Error {
  static readonly instance = new EvaluationFailed('A custom expression function failed');
}

/** Where a failing function is reported. @internal */
export interface FailureReport {
  readonly expression: string;
  readonly events: Pick<SecurityEvents, 'publish'>;
}

/**
 * Publishes an `expression-error` event and aborts the evaluation: the whole
 * expression denies, whatever `not` or `or` surrounds the call.
 */
function fail(report: FailureReport, name: string, error: string): never {
  try {
    report.events.publish({
      type: 'expression-error',
      expression: report.expression,
      function: name,
      error,
    });
  } catch {
    // A broken publisher must not turn a denial into a crash.
  }
  throw EvaluationFailed.instance;
}

/** The name of a thrown value, never its message (which may hold data). */
function errorName(error: unknown): string {
  try {
    if (typeof error === 'object' && error !== null) {
      const { name } = error as { name?: unknown };
      if (typeof name === 'string' && name.length > 0) return name.slice(0, 100);
      return 'Error';
    }
  } catch {
    // A getter on the error threw: report it without its name.
  }
  return typeof error;
}

/** Calls `fn` with the user and the resolved arguments, without allocating for up to three. */
function invoker(custom: CustomFunction, resolvers: readonly Resolve[]): Check {
  const fn = custom.call as (user: AuthenticatedUser | null, ...args: unknown[]) => unknown;
  const [a, b, c] = resolvers;
  switch (resolvers.length) {
    case 0:
      return (user) => fn(user) as boolean;
    case 1:
      if (a) return (user, args) => fn(user, a(user, args)) as boolean;
      break;
    case 2:
      if (a && b) return (user, args) => fn(user, a(user, args), b(user, args)) as boolean;
      break;
    case 3:
      if (a && b && c) {
        return (user, args) => fn(user, a(user, args), b(user, args), c(user, args)) as boolean;
      }
      break;
  }
  return (user, args) => fn(user, ...resolvers.map((resolve) => resolve(user, args))) as boolean;
}

/**
 * The check of a custom function call. A synchronous function must return a
 * boolean; an asynchronous one a boolean or a promise of one. Any other result, a
 * throw or a rejection reports an event and fails the whole evaluation. A promise
 * that does not settle within the function's `timeoutMs` rejects with a
 * `DeadlineExceededError` (and a `deadline-exceeded` event), which the evaluation
 * passes on instead of denying: the caller fails closed with 503.
 *
 * @internal
 */
export function customCheck(
  custom: CustomFunction,
  resolvers: readonly Resolve[],
  report: FailureReport,
): MaybeAsyncCheck {
  const invoke = invoker(custom, resolvers);
  const { name } = custom;
  if (!custom.async) {
    return (user, args) => {
      const result = callReporting(invoke, user, args, report, name);
      if (typeof result === 'boolean') return result;
      if (result instanceof Promise) result.catch(ignore);
      return fail(report, name, isPromiseLike(result) ? 'UnexpectedPromise' : 'NonBooleanResult');
    };
  }
  const settled = (value: unknown): boolean =>
    typeof value === 'boolean' ? value : fail(report, name, 'NonBooleanResult');
  const rejected = (error: unknown): never => fail(report, name, errorName(error));
  const { timeoutMs } = custom;
  const operation = `expression-function:${name}`;
  const timedOut = (): Error => deadlineExceeded(operation, timeoutMs, report.events);
  return (user, args) => {
    const result = callReporting(invoke, user, args, report, name);
    if (typeof result === 'boolean') return result;
    if (isPromiseLike(result)) {
      return withDeadline(Promise.resolve(result).then(settled, rejected), timeoutMs, timedOut);
    }
    return fail(report, name, 'NonBooleanResult');
  };
}

/** Calls a custom function; a throw is reported and denies (through `fail`). */
function callReporting(
  invoke: (user: AuthenticatedUser | null, args: unknown) => unknown,
  user: AuthenticatedUser | null,
  args: unknown,
  report: FailureReport,
  name: string,
): unknown {
  try {
    return invoke(user, args);
  } catch (error) {
    return fail(report, name, errorName(error));
  }
}

function ignore(): void {
  // The promise of a function declared synchronous is dropped; keep it from crashing the process.
}
