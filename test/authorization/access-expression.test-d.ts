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

  it('knows path.<name>, the variables of a path-pattern rule', () => {
    expectTypeOf(Access.expression('path.id == principal.username')).toEqualTypeOf<Access>();
    // @ts-expect-error misspelt root (did you mean path?)
    Access.expression('pth.id == principal.username');
    // @ts-expect-error path is not a function
    Access.expression("path('id') == 'x'");
  });
});
