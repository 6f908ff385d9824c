import { describe, expectTypeOf, test } from 'vitest';
import type { CheckExpression } from '../../src/expression/index.js';

declare function compile<const S extends string>(text: CheckExpression<S>): S;
declare function compileWith<const S extends string, const F extends string = never>(
  text: CheckExpression<S, F>,
  options?: { readonly functions?: Readonly<Record<F, () => boolean>> },
): S;

/** Length of a literal as decimal text, ten characters per step (e.g. `'500'`). */
type LengthOf<
  S extends string,
  Tens extends string[] = [],
  Ones extends 0[] = [],
> = S extends `${infer C0}${infer C1}${infer C2}${infer C3}${infer C4}${infer C5}${infer C6}${infer C7}${infer C8}${infer C9}${infer Rest}`
  ? LengthOf<Rest, [...Tens, `${C0}${C1}${C2}${C3}${C4}${C5}${C6}${C7}${C8}${C9}`], Ones>
  : S extends `${string}${infer Rest}`
    ? LengthOf<Rest, Tens, [...Ones, 0]>
    : `${Tens['length']}${Ones['length']}`;
type Times5<S extends string> = `${S}${S}${S}${S}${S}`;
type Times50<S extends string> = Times5<Times5<`${S}${S}`>>;

/** 80 characters: a call with an escaped quote, a comparison, an operator. */
type Clause = "hasAnyRole('AB', 'B\\'ss') and args.id == principal.user or isAuthenticated() or ";
/** 400 characters. */
type Long400 = Times5<Clause>;
type Valid400 =
  `${Clause}${Clause}${Clause}${Clause}(not isAnonymous() and (permitAll)) || denyAll()                                `;
/** 500 characters, a misspelt function at the very end. */
type Bad500 = `${Long400}${Clause}(((hasRoel('xyz'))))`;
declare const valid400: Valid400;
declare const bad500: Bad500;
declare const bad501: Bad501;

/** 501 characters, the same mistake: over the cap, left to the run-time check. */
type Bad501 = ` ${Bad500}`;

describe('long literals never exceed the instantiation depth', () => {
  test('the test literals have the intended lengths', () => {
    expectTypeOf<LengthOf<Clause>>().toEqualTypeOf<'80'>();
    expectTypeOf<LengthOf<Long400>>().toEqualTypeOf<'400'>();
    expectTypeOf<LengthOf<Valid400>>().toEqualTypeOf<'400'>();
    expectTypeOf<LengthOf<Bad500>>().toEqualTypeOf<'500'>();
    expectTypeOf<LengthOf<Bad501>>().toEqualTypeOf<'501'>();
  });

  test('a 400-character valid literal is checked and accepted', () => {
    expectTypeOf(compile(valid400)).toEqualTypeOf<Valid400>();
    // The trailing `or ` leaves an operator without an operand: a run-time error only.
    expectTypeOf<CheckExpression<Long400>>().toEqualTypeOf<Long400>();
  });

  test('a 500-character literal is still checked', () => {
    expectTypeOf<
      CheckExpression<Bad500>
    >().toEqualTypeOf<"portcullis: unknown function 'hasRoel' at column 484 (did you mean hasRole?)">();
    // @ts-expect-error unknown function at column 484
    compile(bad500);
  });

  test('a literal over 500 characters resolves to itself (checked at run time)', () => {
    expectTypeOf<CheckExpression<Bad501>>().toEqualTypeOf<Bad501>();
    compile(bad501);
  });

  test('worst-case shapes at the cap', () => {
    type Parens = `${Times50<'((((('>}${Times50<')))))'>}`;
    expectTypeOf<LengthOf<Parens>>().toEqualTypeOf<'500'>();
    expectTypeOf<CheckExpression<Parens>>().toEqualTypeOf<Parens>();

    type Unclosed = Times50<'(((((('>;
    expectTypeOf<
      CheckExpression<Unclosed>
    >().toEqualTypeOf<"portcullis: unbalanced parentheses, '(' at column 1 is never closed">();

    type Bangs = `${Times50<'!!!!!!!!!'>}!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!permitAll`;
    expectTypeOf<LengthOf<Bangs>>().toEqualTypeOf<'500'>();
    expectTypeOf<CheckExpression<Bangs>>().toEqualTypeOf<Bangs>();

    type Nots =
      `${Times50<'not not '>}not not not not not not not not not not not not not not not not not not not not not not permitAll   `;
    expectTypeOf<LengthOf<Nots>>().toEqualTypeOf<'500'>();
    expectTypeOf<CheckExpression<Nots>>().toEqualTypeOf<Nots>();

    type Spaced = Times50<'          '>;
    expectTypeOf<CheckExpression<Spaced>>().toEqualTypeOf<'portcullis: empty expression'>();
    expectTypeOf<CheckExpression<`${Spaced}x`>>().toEqualTypeOf<`${Spaced}x`>();
    expectTypeOf<CheckExpression<`x${Spaced}`>>().toEqualTypeOf<`x${Spaced}`>();
    expectTypeOf<
      CheckExpression<`${Times50<'         '>}xxxxxxxxxx`>
    >().toEqualTypeOf<"portcullis: unknown name 'xxxxxxxxxx' at column 451">();

    type LongName = Times50<'abcdefghij'>;
    expectTypeOf<CheckExpression<`${LongName}()`>>().toEqualTypeOf<`${LongName}()`>();
    expectTypeOf<
      CheckExpression<LongName>
    >().toEqualTypeOf<`portcullis: unknown name '${LongName}' at column 1`>();

    type Escapes =
      `hasRole('${Times50<"\\'\\'\\'\\'">}\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'\\'') `;
    expectTypeOf<LengthOf<Escapes>>().toEqualTypeOf<'500'>();
    expectTypeOf<CheckExpression<Escapes>>().toEqualTypeOf<Escapes>();
  });
});

describe('what the type level cannot see falls back to the run-time check', () => {
  test('a non-literal string', () => {
    expectTypeOf<CheckExpression<string>>().toEqualTypeOf<string>();
    expectTypeOf<CheckExpression<string, 'isOwner'>>().toEqualTypeOf<string>();
    const load = (): string => "hasRoel('USER')";
    const dynamic: string = load();
    expectTypeOf(compile(dynamic)).toEqualTypeOf<string>();
  });

  test('template types with holes', () => {
    const role: string = 'USER';
    expectTypeOf(compile(`hasRole('${role}')`)).toEqualTypeOf<`hasRole('${string}')`>();
    expectTypeOf<CheckExpression<`${string}(`>>().toEqualTypeOf<`${string}(`>();
    expectTypeOf<
      CheckExpression<`hasRole('a') or ${string}`>
    >().toEqualTypeOf<`hasRole('a') or ${string}`>();
    expectTypeOf<
      CheckExpression<`args.limit == ${number}`>
    >().toEqualTypeOf<`args.limit == ${number}`>();
    expectTypeOf<
      CheckExpression<`has${string}(args.id)`>
    >().toEqualTypeOf<`has${string}(args.id)`>();
    expectTypeOf<
      CheckExpression<`hasRole('${Uppercase<string>}')`>
    >().toEqualTypeOf<`hasRole('${Uppercase<string>}')`>();
    // The literal part before the hole is still checked.
    expectTypeOf<
      CheckExpression<`hasRoel('${string}')`>
    >().toEqualTypeOf<"portcullis: unknown function 'hasRoel' at column 1 (did you mean hasRole?)">();
  });

  test('a union of literals is checked member by member', () => {
    const text = Math.random() > 0.5 ? "hasRole('A')" : 'permitAll';
    compile(text);
    const wrong = Math.random() > 0.5 ? "hasRole('A')" : 'permitAl';
    // @ts-expect-error one member is invalid
    compile(wrong);
  });

  test('custom function names that are not literals accept every name', () => {
    const functions: Record<string, () => boolean> = {};
    expectTypeOf<
      CheckExpression<'anything(args.id)', string>
    >().toEqualTypeOf<'anything(args.id)'>();
    compileWith('anything(args.id)', { functions });
  });
});

describe('the parameter pattern composes', () => {
  test('a generic wrapper forwards its checked parameter', () => {
    function preAuthorize<const S extends string>(text: CheckExpression<S>): string {
      const source: string = text;
      compile(text);
      return source;
    }
    preAuthorize("hasRole('USER') and hasAuthority('posts:read')");
    // @ts-expect-error checked at the wrapper's call site
    preAuthorize("hasRole('USER') and hasAuthorty('posts:read')");
  });

  test('a union with other argument types keeps the message (rather than overloads)', () => {
    interface Tree {
      readonly type: 'and';
    }
    function rule<const S extends string, const N extends string = never>(
      expression: CheckExpression<S, N> | Tree,
      options?: { readonly functions?: Readonly<Record<N, () => boolean>> },
    ): string {
      if (typeof expression === 'string') return expression;
      return options?.functions === undefined ? expression.type : 'custom';
    }
    rule("hasRole('USER')");
    rule({ type: 'and' });
    rule('isOwner(args.id)', { functions: { isOwner: () => true } });
    expectTypeOf<Parameters<typeof rule<"hasRoel('USER')">>[0]>().toEqualTypeOf<
      Tree | "portcullis: unknown function 'hasRoel' at column 1 (did you mean hasRole?)"
    >();
    // @ts-expect-error the message names the unknown function
    rule("hasRoel('USER')");
    // @ts-expect-error isOwner is not among the functions
    rule('isOwner(args.id)', { functions: { isAdmin: () => true } });
  });

  test('a method with a checked parameter', () => {
    class Access {
      expression<const S extends string>(text: CheckExpression<S>): this {
        const source: string = text; // the implementation sees a string
        return source.length > 0 ? this : this;
      }
    }
    new Access().expression("hasRole('ADMIN')").expression('permitAll');
    // @ts-expect-error unbalanced
    new Access().expression("hasRole('ADMIN'");
  });
});
