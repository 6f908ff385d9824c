import { describe, expectTypeOf, test } from 'vitest';
import type { CheckExpression } from '../../src/expression/index.js';

/** The parameter pattern documented on `CheckExpression` for `compileExpression`. */
declare function compile<const S extends string>(text: CheckExpression<S>): S;

/** The custom-function variant: `F` inferred from the keys, `never` without functions. */
type CustomFunction = (user: unknown, ...args: never[]) => boolean | Promise<boolean>;
declare function compileWith<const S extends string, const F extends string = never>(
  text: CheckExpression<S, F>,
  options?: { readonly functions?: Readonly<Record<F, CustomFunction>> },
): S;

describe('valid literals resolve to themselves', () => {
  test('every built-in function', () => {
    expectTypeOf(compile("hasRole('USER')")).toEqualTypeOf<"hasRole('USER')">();
    compile("hasAnyRole('USER', 'ADMIN')");
    compile("hasAuthority('posts:read')");
    compile('hasAnyAuthority(\'posts:read\', "posts:write")');
    compile('isAuthenticated()');
    compile('isAnonymous( )');
    compile('permitAll()');
    compile('denyAll()');
    compile("hasRole('USER') and hasAuthority('posts:read')");
  });

  test('bare permitAll, as Spring allows', () => {
    expectTypeOf<CheckExpression<'permitAll'>>().toEqualTypeOf<'permitAll'>();
    compile('permitAll or denyAll()');
  });

  test('keywords in any letter case and the symbolic operators', () => {
    compile("hasRole('A') AND hasRole('B') Or NOT hasRole('C')");
    compile("hasRole('A') && !hasRole('B') || !(isAnonymous())");
    compile("not (hasRole('A')) and(hasRole('B'))or(permitAll)");
    compile("NOT(hasRole('A')) AND(permitAll) Or(isAnonymous())");
    compile('TRUE or False and not null == NULL');
  });

  test('comparisons of references with literals and references', () => {
    compile("hasRole('ADMIN') or args.authorId == principal.username");
    compile("principal.attributes.tenant != 'acme' and args.post.owner.id == principal.username");
    compile('args.count == -1.5e+3 or args.limit != 10 or args.ratio == 0.25E-2');
    compile('args.flag == true and args.deleted == null and principal != null');
    compile('args.__proto__ == null or args.constructor.prototype == args.hasRole');
    compile('principal . username == args . author');
    compile('args.a!=args.b && args.c==args.d || !args.e');
  });

  test('nested parentheses and whitespace', () => {
    compile("((hasRole('A') or (hasRole('B'))) and ((((permitAll)))))");
    compile("\n\t( hasRole('A')\r\n  or hasRole('B') )\n");
  });

  test('strings hide quotes, parentheses and names; escapes are honoured', () => {
    compile("hasRole('it\\'s (not) a paren')");
    compile('hasRole("say \\"hi\\" or )")');
    compile("hasRole('back\\\\') and hasRole('x')");
    compile(`hasRole('a"b') or hasRole("a'b")`);
    compile("hasRole('hasRoel(') or hasRole(')))') or hasRole('')");
  });

  test('custom functions named at compile time', () => {
    compileWith('isOwner(args.postId)', { functions: { isOwner: () => true } });
    compileWith("hasPermission(args.id, 'post', 'write') and isOwner(args.id)", {
      functions: {
        hasPermission: (_user: unknown, ..._args: never[]) => Promise.resolve(true),
        isOwner: () => false,
      },
    });
    expectTypeOf<CheckExpression<'isOwner()', 'isOwner'>>().toEqualTypeOf<'isOwner()'>();
    compileWith("hasRole('USER')");
  });
});

describe('invalid literals are compile errors with a message', () => {
  test('a misspelt built-in, with a suggestion', () => {
    expectTypeOf<
      CheckExpression<"hasRoel('USER')">
    >().toEqualTypeOf<"portcullis: unknown function 'hasRoel' at column 1 (did you mean hasRole?)">();
    expectTypeOf<
      CheckExpression<"hasRole('A') or HasAnyRole('B')">
    >().toEqualTypeOf<"portcullis: unknown function 'HasAnyRole' at column 17 (did you mean hasAnyRole?)">();
    expectTypeOf<
      CheckExpression<'isAuthnticated ()'>
    >().toEqualTypeOf<"portcullis: unknown function 'isAuthnticated' at column 1 (did you mean isAuthenticated?)">();
    // @ts-expect-error unknown function
    compile("hasRoel('USER')");
    // @ts-expect-error unknown function after a valid call
    compile("hasRole('USER') and hasAuthorty('posts:read')");
  });

  test('an unknown function, and a keyword or reference called as one', () => {
    expectTypeOf<
      CheckExpression<"hasPermission(args.id, 'post')">
    >().toEqualTypeOf<"portcullis: unknown function 'hasPermission' at column 1">();
    expectTypeOf<
      CheckExpression<'permitAll or true()'>
    >().toEqualTypeOf<"portcullis: 'true' at column 14 is not a function">();
    expectTypeOf<
      CheckExpression<'principal()'>
    >().toEqualTypeOf<"portcullis: 'principal' at column 1 is not a function">();
    // @ts-expect-error unknown function
    compile("hasPermission(args.id, 'post', 'write')");
  });

  test('an unknown bare identifier', () => {
    expectTypeOf<
      CheckExpression<"hasRole('A') or admin">
    >().toEqualTypeOf<"portcullis: unknown name 'admin' at column 17">();
    expectTypeOf<
      CheckExpression<'principle.username == args.id'>
    >().toEqualTypeOf<"portcullis: unknown name 'principle' at column 1 (did you mean principal?)">();
    // @ts-expect-error unknown identifier
    compile('args.id == user.name');
  });

  test('a function name without parentheses (only permitAll may omit them)', () => {
    expectTypeOf<
      CheckExpression<'isAuthenticated'>
    >().toEqualTypeOf<"portcullis: 'isAuthenticated' at column 1 is a function, call it as isAuthenticated(...)">();
    expectTypeOf<
      CheckExpression<'permitAll or isOwner', 'isOwner'>
    >().toEqualTypeOf<"portcullis: 'isOwner' at column 14 is a function, call it as isOwner(...)">();
    // @ts-expect-error denyAll needs parentheses
    compile('denyAll');
  });

  test('characters outside the grammar', () => {
    expectTypeOf<
      CheckExpression<"hasRole('A') & hasRole('B')">
    >().toEqualTypeOf<"portcullis: unexpected character '&' at column 14">();
    expectTypeOf<
      CheckExpression<'args.a = principal.username'>
    >().toEqualTypeOf<"portcullis: unexpected character '=' at column 8">();
    expectTypeOf<
      CheckExpression<'permitAll | denyAll()'>
    >().toEqualTypeOf<"portcullis: unexpected character '|' at column 11">();
    expectTypeOf<
      CheckExpression<'@permitAll'>
    >().toEqualTypeOf<"portcullis: unexpected character '@' at column 1">();
    expectTypeOf<
      CheckExpression<'hasRôle()'>
    >().toEqualTypeOf<"portcullis: unknown name 'hasR' at column 1">();
    // @ts-expect-error a single '=' is not a comparison
    compile('args.id = principal.username');
  });

  test('unbalanced parentheses', () => {
    expectTypeOf<
      CheckExpression<"hasRole('A'))">
    >().toEqualTypeOf<"portcullis: unbalanced parentheses, unexpected ')' at column 13">();
    expectTypeOf<
      CheckExpression<"(hasRole('A') or (hasRole('B'))">
    >().toEqualTypeOf<"portcullis: unbalanced parentheses, '(' at column 1 is never closed">();
    expectTypeOf<
      CheckExpression<')('>
    >().toEqualTypeOf<"portcullis: unbalanced parentheses, unexpected ')' at column 1">();
    // @ts-expect-error the '(' is never closed
    compile("(hasRole('USER')");
    // @ts-expect-error an unexpected ')'
    compile("hasRole('USER'))");
    // @ts-expect-error a ')' inside a string does not close the call
    compile("hasRole(')'");
  });

  test('unterminated strings', () => {
    expectTypeOf<
      CheckExpression<"hasRole('A) or permitAll">
    >().toEqualTypeOf<'portcullis: unterminated string starting at column 9'>();
    expectTypeOf<
      CheckExpression<"hasRole('A\\')">
    >().toEqualTypeOf<'portcullis: unterminated string starting at column 9'>();
    expectTypeOf<
      CheckExpression<'hasRole("A\')'>
    >().toEqualTypeOf<'portcullis: unterminated string starting at column 9'>();
    // @ts-expect-error unterminated string
    compile("hasRole('USER)");
  });

  test('an empty expression', () => {
    expectTypeOf<CheckExpression<''>>().toEqualTypeOf<'portcullis: empty expression'>();
    expectTypeOf<CheckExpression<' \n\t'>>().toEqualTypeOf<'portcullis: empty expression'>();
    // @ts-expect-error an empty expression
    compile('');
  });

  test('a custom function that is not registered', () => {
    expectTypeOf<
      CheckExpression<'isOwnr(args.id)', 'isOwner'>
    >().toEqualTypeOf<"portcullis: unknown function 'isOwnr' at column 1 (did you mean isOwner?)">();
    // @ts-expect-error misspelt custom function
    compileWith('isOwnr(args.postId)', { functions: { isOwner: () => true } });
    // @ts-expect-error no functions given: F is never, not string
    compileWith('isOwner(args.postId)');
    // @ts-expect-error registered functions do not change the built-ins
    compileWith("hasRoel('A') or isOwner()", { functions: { isOwner: () => true } });
  });
});
