import { describe, expectTypeOf, it } from 'vitest';
import { Access } from '../../src/index.js';

describe('Access.expression types', () => {
  it('checks string literals at compile time', () => {
    expectTypeOf(
      Access.expression("hasRole('USER') and hasAuthority('posts:read')"),
    ).toEqualTypeOf<Access>();
    // @ts-expect-error misspelt function
    Access.expression("hasRoel('USER')");
    // @ts-expect-error unbalanced parentheses
    new Access().expression("(hasRole('USER')");
    const dynamic: string = String(Date.now());
    expectTypeOf(Access.expression(dynamic)).toEqualTypeOf<Access>();
  });
});
