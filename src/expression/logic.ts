import type { AuthenticatedUser } from '../core/authenticated-user.js';
import type { CompareNode } from './ast.js';
import { internalize, type Check } from './rights.js';
import { equals, resolver } from './values.js';

/** A compiled condition that may wait for an asynchronous custom function. @internal */
export type MaybeAsyncCheck = (
  user: AuthenticatedUser | null,
  args: unknown,
) => boolean | Promise<boolean>;

/** `a and b and …` with short-circuit, left to right. @internal */
export function andCheck(checks: readonly Check[]): Check {
  const [a, b, c] = checks;
  if (a === undefined || b === undefined) throw new RangeError('and needs two operands');
  if (checks.length === 2) return (user, args) => a(user, args) && b(user, args);
  if (checks.length === 3 && c !== undefined) {
    return (user, args) => a(user, args) && b(user, args) && c(user, args);
  }
  const count = checks.length;
  return (user, args) => {
    for (let i = 0; i < count; i++) if (!(checks[i] as Check)(user, args)) return false;
    return true;
  };
}

/** `a or b or …` with short-circuit, left to right. @internal */
export function orCheck(checks: readonly Check[]): Check {
  const [a, b, c] = checks;
  if (a === undefined || b === undefined) throw new RangeError('or needs two operands');
  if (checks.length === 2) return (user, args) => a(user, args) || b(user, args);
  if (checks.length === 3 && c !== undefined) {
    return (user, args) => a(user, args) || b(user, args) || c(user, args);
  }
  const count = checks.length;
  return (user, args) => {
    for (let i = 0; i < count; i++) if ((checks[i] as Check)(user, args)) return true;
    return false;
  };
}

/** `not a`. @internal */
export function notCheck(check: Check): Check {
  return (user, args) => !check(user, args);
}

/**
 * `left == right` / `left != right` (see {@link equals}). A comparison that reads
 * `principal.*` is false for the anonymous user, whichever the operator.
 *
 * @internal
 */
export function compareCheck({ operator, left, right }: CompareNode): Check {
  // A literal on the right lets the check be a plain `===` (literals are primitives).
  const [value, other] = left.type === 'literal' ? [right, left] : [left, right];
  const readsPrincipal = [left, right].some(
    (n) => n.type === 'reference' && n.root === 'principal',
  );
  const resolve = resolver(value);
  let check: Check;
  if (other.type === 'literal') {
    const constant = typeof other.value === 'string' ? internalize(other.value) : other.value;
    check = (user, args) => resolve(user, args) === constant;
  } else {
    const resolveOther = resolver(other);
    check = (user, args) => equals(resolve(user, args), resolveOther(user, args));
  }
  if (operator === '!=') {
    const eq = check;
    check = (user, args) => !eq(user, args);
  }
  if (!readsPrincipal) return check;
  const inner = check;
  return (user, args) => user != null && inner(user, args);
}
