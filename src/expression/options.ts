import { ConfigurationError } from '../core/errors.js';
import { securityEvents, type SecurityEvents } from '../core/events.js';
import { rejectUnknownOptions, requireInteger } from '../core/validate.js';
import {
  BUILTINS,
  readFunctions,
  signatureOf,
  type CustomFunction,
  type ExpressionFunctions,
  type FunctionSignatures,
  type Signature,
} from './functions.js';

/** Options of {@link parseExpression}. */
export interface ParseExpressionOptions<F extends FunctionSignatures = FunctionSignatures> {
  /**
   * Custom functions by name, each `{ params, call, async? }`. Names are identifiers
   * other than the built-ins, `principal`, `args` and the keywords.
   * @defaultValue `{}`
   */
  readonly functions?: ExpressionFunctions<F>;
  /**
   * The longest expression accepted, in characters (at most 10,000,000).
   * @defaultValue `10_000`
   */
  readonly maxLength?: number;
  /**
   * How deep parentheses, `not` / `!` and call arguments may nest (at most 256).
   * @defaultValue `64`
   */
  readonly maxDepth?: number;
}

/** Options of {@link compileExpression}. */
export interface CompileExpressionOptions<
  F extends FunctionSignatures = FunctionSignatures,
> extends ParseExpressionOptions<F> {
  /**
   * Where `expression-error` events (a custom function that threw, rejected or
   * returned a non-boolean) are published.
   * @defaultValue `securityEvents`
   */
  readonly events?: SecurityEvents;
}

/** Options as found at run time, before validation. @internal */
export type UncheckedOptions = Omit<CompileExpressionOptions, 'functions'> & {
  readonly functions?: unknown;
};

/** The validated options. @internal */
export interface ResolvedOptions {
  readonly maxLength: number;
  readonly maxDepth: number;
  readonly custom: ReadonlyMap<string, CustomFunction>;
  /** Built-in and custom signatures by name. */
  readonly signatures: ReadonlyMap<string, Signature>;
  readonly events: Pick<SecurityEvents, 'publish'>;
}

const KNOWN = new Set(['functions', 'maxLength', 'maxDepth', 'events']);

/** Validates the options and merges the defaults into a new object. @internal */
export function resolveOptions(options: UncheckedOptions | undefined): ResolvedOptions {
  if (options === undefined) return DEFAULTS;
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  rejectUnknownOptions('compileExpression', options, KNOWN);
  const { maxLength = 10_000, maxDepth = 64, events = securityEvents, functions } = options;
  if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  const custom = readFunctions(functions);
  const signatures = new Map(BUILTINS);
  for (const [name, definition] of custom) signatures.set(name, signatureOf(definition));
  return {
    maxLength: requireInteger('maxLength', maxLength, 1, 10_000_000),
    maxDepth: requireInteger('maxDepth', maxDepth, 1, 256),
    custom,
    signatures,
    events,
  };
}

const DEFAULTS: ResolvedOptions = {
  maxLength: 10_000,
  maxDepth: 64,
  custom: new Map(),
  signatures: BUILTINS,
  events: securityEvents,
};
