import type { AuthenticatedUser } from '../core/authenticated-user.js';
import type { MaybeAsyncCheck } from './logic.js';

/**
 * A junction whose operands may answer with a promise: operands run left to right,
 * each only after the previous one settled, and stop at the first that decides
 * (`false` for `and`, `true` for `or`), so a later custom function is never called
 * when an earlier operand already decided.
 *
 * @internal
 */
export function asyncJunction(
  type: 'and' | 'or',
  checks: readonly MaybeAsyncCheck[],
): MaybeAsyncCheck {
  // `and` stops at the first false operand, `or` at the first true one.
  const decisive = type === 'or';
  const count = checks.length;
  const from = (
    index: number,
    user: AuthenticatedUser | null,
    args: unknown,
  ): boolean | Promise<boolean> => {
    for (let i = index; i < count; i++) {
      const result = (checks[i] as MaybeAsyncCheck)(user, args);
      if (typeof result !== 'boolean') {
        return result.then((value) => (value === decisive ? decisive : from(i + 1, user, args)));
      }
      if (result === decisive) return decisive;
    }
    return !decisive;
  };
  return (user, args) => from(0, user, args);
}

/** `not a` for an operand that may answer with a promise. @internal */
export function asyncNot(check: MaybeAsyncCheck): MaybeAsyncCheck {
  return (user, args) => {
    const result = check(user, args);
    return typeof result === 'boolean' ? !result : result.then(negate);
  };
}

function negate(value: boolean): boolean {
  return !value;
}
