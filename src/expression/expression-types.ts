/**
 * Type-level checking of security-expression string literals: a misspelt function
 * name, an unbalanced parenthesis or an unterminated string in a literal rule is a
 * `tsc` error, before the code runs.
 *
 * @module portcullis
 */

/** The built-in functions, in the order a "did you mean" suggestion prefers them. */
type BuiltInFunctions = [
  'hasRole',
  'hasAnyRole',
  'hasAuthority',
  'hasAnyAuthority',
  'isAuthenticated',
  'isAnonymous',
  'permitAll',
  'denyAll',
];
type BuiltInFunction = BuiltInFunctions[number];
/** Keywords, matched in any letter case. */
type Keyword = 'and' | 'or' | 'not' | 'true' | 'false' | 'null';
/** Keywords that may be followed by `(`: `not (a)`, `a and(b)`. */
type OperatorKeyword = 'and' | 'or' | 'not';
type ReferenceRoot = 'principal' | 'args' | 'path';

type Whitespace = ' ' | '\t' | '\n' | '\r';
type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
type Lower = 'a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g' | 'h' | 'i' | 'j' | 'k' | 'l' | 'm';
type Lower2 = 'n' | 'o' | 'p' | 'q' | 'r' | 's' | 't' | 'u' | 'v' | 'w' | 'x' | 'y' | 'z';
type IdentifierStart = Lower | Lower2 | Uppercase<Lower | Lower2> | '_' | '$';
type IdentifierPart = IdentifierStart | Digit;
type NumberPart = Digit | '.' | 'e' | 'E' | '+' | '-';

/** `[first ten characters, rest]` of `S`, or `false` when it is shorter. */
type SplitTen<S extends string> =
  S extends `${infer C0}${infer C1}${infer C2}${infer C3}${infer C4}${infer C5}${infer C6}${infer C7}${infer C8}${infer C9}${infer Rest}`
    ? [`${C0}${C1}${C2}${C3}${C4}${C5}${C6}${C7}${C8}${C9}`, Rest]
    : false;

/**
 * `true` when `S` is longer than the type-level cap of 500 characters (50 blocks
 * of 10). Longer literals are checked only at run time, so that `tsc` never reaches
 * its recursion limits (1,000 tail-recursive steps).
 */
type TooLong<S extends string, Blocks extends 0[] = []> = Blocks['length'] extends 50
  ? S extends ''
    ? false
    : true
  : SplitTen<S> extends [string, infer Rest extends string]
    ? TooLong<Rest, [...Blocks, 0]>
    : false;

type TrimStart<S extends string> = S extends `${Whitespace}${infer Rest}` ? TrimStart<Rest> : S;

/** `N + 1`, for a decimal number written least-significant digit first. */
type Increment<N extends string> = N extends `9${infer Higher}`
  ? `0${Increment<Higher>}`
  : N extends `${infer D extends keyof NextDigit}${infer Higher}`
    ? `${NextDigit[D]}${Higher}`
    : '1';
type NextDigit = { 0: '1'; 1: '2'; 2: '3'; 3: '4'; 4: '5'; 5: '6'; 6: '7'; 7: '8'; 8: '9' };
type Reverse<S extends string, Done extends string = ''> = S extends `${infer C}${infer Rest}`
  ? Reverse<Rest, `${C}${Done}`>
  : Done;

/** `N` plus the length of `S`, as decimal text (`N` least-significant digit first). */
type Count<S extends string, N extends string> =
  SplitTen<S> extends [string, infer Rest extends string]
    ? Count<Rest, N extends `${infer Units}${infer Tens}` ? `${Units}${Increment<Tens>}` : '01'>
    : S extends `${string}${infer Rest}`
      ? Count<Rest, Increment<N>>
      : Reverse<N>;

/** The 1-based column at which the suffix `Rest` starts inside `Source`. */
type Column<Source extends string, Rest extends string> = Source extends `${infer Before}${Rest}`
  ? Count<Before, '1'>
  : '?';

/** Whether `S` has at most `N['length']` characters. */
type AtMost<S extends string, N extends 0[]> = S extends `${string}${infer Rest}`
  ? N extends [0, ...infer Fewer extends 0[]]
    ? AtMost<Rest, Fewer>
    : false
  : true;

/**
 * Whether `A` and `B` are at most `Edits['length']` edits apart (insertion,
 * deletion, substitution, adjacent transposition), like the runtime suggestion.
 */
type WithinEdits<A extends string, B extends string, Edits extends 0[]> = A extends B
  ? true
  : [A, B] extends [`${infer A0}${infer AR}`, `${infer B0}${infer BR}`]
    ? A0 extends B0
      ? WithinEdits<AR, BR, Edits>
      : Edits extends [0, ...infer Fewer extends 0[]]
        ? true extends
            | WithinEdits<AR, BR, Fewer>
            | WithinEdits<AR, B, Fewer>
            | WithinEdits<A, BR, Fewer>
            | ([AR, BR] extends [`${B0}${infer AT}`, `${A0}${infer BT}`]
                ? WithinEdits<AT, BT, Fewer>
                : false)
          ? true
          : false
        : false
    : AtMost<`${A}${B}`, Edits>; // one of them is empty

/** Edits a suggestion may be away: 1 below 5 characters, 2 below 12, else 3. */
type Budget<Name extends string> =
  AtMost<Name, [0, 0, 0, 0]> extends true
    ? [0]
    : AtMost<Name, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> extends true
      ? [0, 0]
      : [0, 0, 0];

type Near<Name extends string, Candidate extends string> = WithinEdits<
  Lowercase<Name>,
  Lowercase<Candidate>,
  Budget<Name>
>;

/** The first candidate of `List` near `Name`, else the only one of `Extra`, as a hint. */
type Suggestion<Name extends string, List extends string[], Extra extends string> = List extends [
  infer First extends string,
  ...infer Others extends string[],
]
  ? Near<Name, First> extends true
    ? ` (did you mean ${First}?)`
    : Suggestion<Name, Others, Extra>
  : OnlyOne<Extra extends string ? (Near<Name, Extra> extends true ? Extra : never) : never>;

type OnlyOne<T extends string> = [T] extends [never]
  ? ''
  : [T] extends [UnionToIntersection<T>]
    ? ` (did you mean ${T}?)`
    : '';

type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (
  value: infer I,
) => void
  ? I
  : never;

/** `true` when the identifier `Id`, followed by `Rest`, is allowed; else the message. */
type CheckIdentifier<
  Source extends string,
  Id extends string,
  Rest extends string,
  F extends string,
> =
  TrimStart<Rest> extends `(${string}`
    ? [Id] extends [BuiltInFunction]
      ? true
      : Lowercase<Id> extends OperatorKeyword
        ? true
        : Lowercase<Id> extends Keyword
          ? `portcullis: '${Id}' at column ${Column<Source, `${Id}${Rest}`>} is not a function`
          : Id extends ReferenceRoot
            ? `portcullis: '${Id}' at column ${Column<Source, `${Id}${Rest}`>} is not a function`
            : [Id] extends [F]
              ? true
              : `portcullis: unknown function '${Id}' at column ${Column<Source, `${Id}${Rest}`>}${Suggestion<Id, BuiltInFunctions, F>}`
    : Lowercase<Id> extends Keyword
      ? true
      : Id extends ReferenceRoot | 'permitAll'
        ? true
        : [Id] extends [BuiltInFunction | (string extends F ? never : F)]
          ? `portcullis: '${Id}' at column ${Column<Source, `${Id}${Rest}`>} is a function, call it as ${Id}(...)`
          : `portcullis: unknown name '${Id}' at column ${Column<Source, `${Id}${Rest}`>}${Suggestion<Id, ['permitAll', 'principal', 'args', 'path'], never>}`;

/**
 * `[identifier, rest]`: the identifier characters at the start of `S`, after `Id`;
 * `false` when a `${string}`-like hole follows (the name is unknown until run time).
 */
type ReadIdentifier<S extends string, Id extends string> = S extends `${infer C}${infer Rest}`
  ? C extends IdentifierPart
    ? ReadIdentifier<Rest, `${Id}${C}`>
    : IsHole<C> extends true
      ? false
      : [Id, S]
  : S extends ''
    ? [Id, S]
    : false;

/**
 * Whether `C` is a template hole (`string`, `${number}`, `Uppercase<string>`, …)
 * rather than one character: a hole accepts some two-character string.
 */
type IsHole<C extends string> = [Extract<'10' | 'ab' | 'AB' | 'Ab' | 'aB', C>] extends [never]
  ? false
  : true;

type SkipNumber<S extends string> = S extends `${NumberPart}${infer Rest}` ? SkipNumber<Rest> : S;

/** Whether `Body` ends with an odd number of backslashes (the quote after it is escaped). */
type EndsEscaped<
  Body extends string,
  Odd extends boolean = false,
> = Body extends `${infer Before}\\` ? EndsEscaped<Before, Odd extends true ? false : true> : Odd;

/** The text after the closing quote `Q` of a string whose body starts `S`, or `false`. */
type SkipString<S extends string, Q extends string> = S extends `${infer Body}${Q}${infer After}`
  ? EndsEscaped<Body> extends true
    ? SkipString<After, Q>
    : After
  : false;

/**
 * Scans `S` one token per tail-recursive step. `Depth` is one `(` per unclosed
 * parenthesis, `Outermost` the text after the outermost unclosed `(`, `Path`
 * whether the next identifier is a reference `.segment`. `true` or a message.
 */
type Walk<
  Source extends string,
  S extends string,
  F extends string,
  Depth extends string,
  Outermost extends string,
  Path extends boolean,
> = S extends `${infer C}${infer Rest}`
  ? C extends Whitespace
    ? Walk<Source, TrimStart<Rest>, F, Depth, Outermost, Path>
    : C extends IdentifierStart
      ? ReadIdentifier<Rest, C> extends [infer Id extends string, infer After extends string]
        ? Path extends true
          ? Walk<Source, After, F, Depth, Outermost, false>
          : CheckIdentifier<Source, Id, After, F> extends infer Result
            ? [Result] extends [true]
              ? Walk<Source, After, F, Depth, Outermost, false>
              : Result
            : never
        : true // a hole in the name: checked at run time
      : C extends Digit | '-'
        ? Walk<Source, SkipNumber<Rest>, F, Depth, Outermost, false>
        : C extends '.'
          ? Walk<Source, Rest, F, Depth, Outermost, true>
          : C extends '('
            ? Walk<Source, Rest, F, `${Depth}(`, Depth extends '' ? Rest : Outermost, false>
            : C extends ')'
              ? Depth extends `(${infer Outer}`
                ? Walk<Source, Rest, F, Outer, Outermost, false>
                : `portcullis: unbalanced parentheses, unexpected ')' at column ${Column<Source, S>}`
              : C extends "'" | '"'
                ? SkipString<Rest, C> extends infer After extends string
                  ? Walk<Source, After, F, Depth, Outermost, false>
                  : `portcullis: unterminated string starting at column ${Column<Source, S>}`
                : C extends '!'
                  ? Walk<
                      Source,
                      Rest extends `=${infer After}` ? After : Rest,
                      F,
                      Depth,
                      Outermost,
                      false
                    >
                  : C extends ','
                    ? Walk<Source, Rest, F, Depth, Outermost, false>
                    : [C, Rest] extends ['=' | '&' | '|', `${C}${infer After}`]
                      ? Walk<Source, After, F, Depth, Outermost, false>
                      : IsHole<C> extends true
                        ? true // a `${string}` hole: the rest is checked at run time
                        : `portcullis: unexpected character '${C}' at column ${Column<Source, S>}`
  : S extends ''
    ? Depth extends ''
      ? true
      : `portcullis: unbalanced parentheses, '(' at column ${Column<Source, `(${Outermost}`>} is never closed`
    : true; // not a plain literal: checked at run time

type CheckLiteral<S extends string, F extends string> = S extends string
  ? TooLong<S> extends true
    ? S
    : TrimStart<S> extends ''
      ? 'portcullis: empty expression'
      : Walk<S, S, F, '', '', false> extends infer Result
        ? [Result] extends [true]
          ? S
          : Result
        : never
  : never;

/**
 * `S` when the literal security expression `S` passes the compile-time checks,
 * else a `"portcullis: … at column N …"` message type, so that passing the literal
 * is a `tsc` error showing the message.
 *
 * Checked: every `name(` is a built-in function, one of `CustomFunctions` or
 * `and`/`or`/`not`; every bare name is `permitAll`, a keyword (`and`, `or`, `not`,
 * `true`, `false`, `null`, any case) or `principal`/`args`/`path` (their `.segments` are
 * not checked); parentheses balance; strings are terminated (backslash escapes
 * honoured); no character outside the grammar (a lone `=`, `&`, `|`, `@`, …).
 * Argument counts and types, operator placement and reference paths are checked
 * by `compileExpression` at run time. A non-literal `string`, a template type
 * with `${string}` holes and a literal over 500 characters resolve to `S`: they
 * are checked at run time only.
 *
 * Declare the parameter as `text: CheckExpression<S>` with `S` a type parameter
 * `extends string` (`const` optional); TypeScript infers `S` from the argument and
 * the body sees a `string`. For custom functions add `F extends string = never`
 * (the default matters: an uninferred `F` is `string`, which accepts any name) and
 * infer `F` from the keys of the functions object. Accept other argument types
 * through a union in the same parameter (`CheckExpression<S, F> | ExpressionNode`),
 * not through overloads: with overloads `tsc` may report only the last overload's
 * error and hide the message.
 *
 * @example
 * ```ts
 * declare function rule<const S extends string>(text: CheckExpression<S>): void;
 * rule("hasRole('USER') and hasAuthority('posts:read')"); // ok
 * rule("hasRoel('USER')"); // error: … not assignable to parameter of type
 * //   '"portcullis: unknown function 'hasRoel' at column 1 (did you mean hasRole?)"'
 * declare const text: string;
 * rule(text); // ok: checked at run time
 *
 * declare function withFunctions<const S extends string, const F extends string = never>(
 *   text: CheckExpression<S, F>,
 *   options?: { functions?: Readonly<Record<F, (user: unknown) => boolean>> },
 * ): void;
 * withFunctions('isOwner(args.postId)', { functions: { isOwner: () => true } }); // ok
 * withFunctions('isOwner(args.postId)'); // error: unknown function 'isOwner'
 * ```
 */
export type CheckExpression<
  S extends string,
  CustomFunctions extends string = never,
> = string extends S ? S : CheckLiteral<S, CustomFunctions>;
