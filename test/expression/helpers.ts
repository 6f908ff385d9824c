import { AuthenticatedUser, User } from '../../src/core/index.js';
import { ExpressionSyntaxError } from '../../src/expression/index.js';

/** An authenticated user with these roles, authorities and attributes. */
export function user(
  roles: string[] = [],
  authorities: string[] = [],
  options: { username?: string; attributes?: Record<string, unknown>; method?: string } = {},
): AuthenticatedUser {
  return AuthenticatedUser.from(
    new User(options.username ?? 'alice', '{noop}unused', roles, authorities),
    { authenticationMethod: options.method ?? 'basic', attributes: options.attributes ?? {} },
  );
}

/** The ExpressionSyntaxError `fn` throws (fails the test when it throws nothing or something else). */
export function syntaxError(fn: () => unknown): ExpressionSyntaxError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) return error;
    throw error;
  }
  throw new Error('expected an ExpressionSyntaxError');
}

/** What `fn` threw (fails the test when it does not throw). */
export function thrown(fn: () => unknown): { code?: string; option?: string; name: string } {
  try {
    fn();
  } catch (error) {
    return error as { code?: string; option?: string; name: string };
  }
  throw new Error('expected an error');
}
