import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { DEFAULT_DEADLINES, requireDeadline } from '../core/deadline.js';
import { ConfigurationError } from '../core/errors.js';

/**
 * What a custom function's parameter accepts: `'string'` a string literal,
 * `'reference'` a reference (`args.postId`, `principal.username`), `'value'` either.
 */
export type ParameterKind = 'string' | 'reference' | 'value';

/** The value a parameter of kind `K` receives: a string, or whatever the reference holds. */
export type ParameterValue<K extends ParameterKind> = K extends 'string' ? string : unknown;

/** The argument list a custom function with parameters `P` receives after the user. */
export type ExpressionFunctionArguments<P extends readonly ParameterKind[]> = {
  -readonly [I in keyof P]: ParameterValue<P[I]>;
};

/**
 * A synchronous custom function: `call` returns a boolean. An expression calling
 * only synchronous functions compiles to a synchronous check.
 */
export interface SyncExpressionFunction<
  P extends readonly ParameterKind[] = readonly ParameterKind[],
> {
  /** The kinds of the parameters, in order (the arity is fixed). */
  readonly params: P;
  /** `false` (the default): `call` must return a boolean, never a promise. */
  readonly async?: false;
  /**
   * The function, called without `this`, with the user (`null` when anonymous) and
   * the resolved arguments (a missing reference is `undefined`). Anything but a
   * boolean, or a throw, denies the whole expression and publishes an
   * `expression-error` event.
   */
  readonly call: (
    user: AuthenticatedUser | null,
    ...args: ExpressionFunctionArguments<P>
  ) => boolean;
}

/**
 * An asynchronous custom function: `call` returns a boolean or a promise of one.
 * An expression that calls one compiles to an asynchronous check.
 */
export interface AsyncExpressionFunction<
  P extends readonly ParameterKind[] = readonly ParameterKind[],
> {
  /** The kinds of the parameters, in order (the arity is fixed). */
  readonly params: P;
  readonly async: true;
  /**
   * How long one call may take before it settles, in milliseconds (1 to 600,000).
   * Past it the evaluation rejects with a `DeadlineExceededError` (operation
   * `expression-function:<name>`) and a `deadline-exceeded` event is published: the
   * request fails closed with 503, never a hang and never a silent grant or 403.
   * @defaultValue `5_000`
   */
  readonly timeoutMs?: number;
  /**
   * The function, called without `this`, with the user (`null` when anonymous) and
   * the resolved arguments. A result other than a boolean, a throw or a rejection
   * denies the whole expression and publishes an `expression-error` event.
   */
  readonly call: (
    user: AuthenticatedUser | null,
    ...args: ExpressionFunctionArguments<P>
  ) => boolean | PromiseLike<boolean>;
}

/** A custom function of an expression, registered by name in `functions`. */
export type ExpressionFunction<P extends readonly ParameterKind[] = readonly ParameterKind[]> =
  SyncExpressionFunction<P> | AsyncExpressionFunction<P>;

/** The parameter lists of a set of custom functions, by name (inferred from `functions`). */
export type FunctionSignatures = Readonly<Record<string, readonly ParameterKind[]>>;

/** Custom functions by name, each typed by its parameter list. */
export type ExpressionFunctions<F extends FunctionSignatures = FunctionSignatures> = {
  readonly [K in keyof F]: ExpressionFunction<F[K]>;
};

/** What the parser needs to know of a function. @internal */
export interface Signature {
  readonly min: number;
  readonly max: number;
  /** The kind of the parameter at an index (below `max`). */
  readonly kind: (index: number) => ParameterKind;
}

/** A custom function, validated and copied at compile time. @internal */
export interface CustomFunction {
  readonly name: string;
  readonly params: readonly ParameterKind[];
  readonly async: boolean;
  /** The deadline of one call of an asynchronous function, in milliseconds. */
  readonly timeoutMs: number;
  readonly call: (user: AuthenticatedUser | null, ...args: never[]) => unknown;
}

const strings = (): ParameterKind => 'string';
const NONE: Signature = { min: 0, max: 0, kind: strings };
const ONE: Signature = { min: 1, max: 1, kind: strings };
const SOME: Signature = { min: 1, max: Number.POSITIVE_INFINITY, kind: strings };

/** The built-in functions and their arities; every argument is a string literal. @internal */
export const BUILTINS: ReadonlyMap<string, Signature> = new Map([
  ['hasRole', ONE],
  ['hasAnyRole', SOME],
  ['hasAuthority', ONE],
  ['hasAnyAuthority', SOME],
  ['isAuthenticated', NONE],
  ['isAnonymous', NONE],
  ['permitAll', NONE],
  ['denyAll', NONE],
]);

/** Words that cannot name a custom function. @internal */
export const RESERVED = new Set(['and', 'or', 'not', 'true', 'false', 'null']);
const ROOTS = new Set(['principal', 'args', 'path']);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/u;
const KINDS = new Set<unknown>(['string', 'reference', 'value']);
const MAX_PARAMS = 16;

/**
 * Validates and copies the `functions` option (later changes to the caller's object
 * have no effect).
 *
 * @internal
 */
export function readFunctions(functions: unknown): ReadonlyMap<string, CustomFunction> {
  const result = new Map<string, CustomFunction>();
  if (functions === undefined) return result;
  if (typeof functions !== 'object' || functions === null || Array.isArray(functions)) {
    throw new ConfigurationError('functions', 'must be an object of functions by name');
  }
  for (const [name, definition] of Object.entries(functions)) {
    result.set(name, readFunction(name, definition));
  }
  return result;
}

function readFunction(name: string, definition: unknown): CustomFunction {
  const option = `functions.${name}`;
  if (!IDENTIFIER.test(name)) {
    throw new ConfigurationError(
      option,
      'must be named like an identifier ([A-Za-z_$][A-Za-z0-9_$]*)',
    );
  }
  if (BUILTINS.has(name) || ROOTS.has(name) || RESERVED.has(name.toLowerCase())) {
    throw new ConfigurationError(option, 'is a built-in function, a reference or a keyword');
  }
  if (typeof definition !== 'object' || definition === null) {
    throw new ConfigurationError(option, 'must be an object { params, call, async? }');
  }
  const { params, call, async, timeoutMs } = definition as Partial<Record<string, unknown>>;
  if (!Array.isArray(params) || params.length > MAX_PARAMS || !params.every((p) => KINDS.has(p))) {
    throw new ConfigurationError(
      `${option}.params`,
      `must be an array of at most ${MAX_PARAMS} of 'string', 'reference', 'value'`,
    );
  }
  if (typeof call !== 'function') {
    throw new ConfigurationError(`${option}.call`, 'must be a function');
  }
  if (async !== undefined && typeof async !== 'boolean') {
    throw new ConfigurationError(`${option}.async`, 'must be a boolean');
  }
  if (timeoutMs !== undefined && async !== true) {
    throw new ConfigurationError(`${option}.timeoutMs`, 'applies to async: true functions only');
  }
  return Object.freeze({
    name,
    params: Object.freeze([...(params as ParameterKind[])]),
    async: async === true,
    timeoutMs:
      timeoutMs === undefined
        ? DEFAULT_DEADLINES.expressionFunctionMs
        : requireDeadline(`${option}.timeoutMs`, timeoutMs),
    call: call as CustomFunction['call'],
  });
}

/** The signature of a custom function. @internal */
export function signatureOf(custom: CustomFunction): Signature {
  const { params } = custom;
  return { min: params.length, max: params.length, kind: (index) => params[index] ?? 'value' };
}
