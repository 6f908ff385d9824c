/**
 * The security-expression language: one rule language for URL rules, tRPC
 * procedures and GraphQL directives (`hasRole('ADMIN') or args.authorId ==
 * principal.username`), parsed and validated once when a rule is defined, and
 * evaluated per request by precompiled closures (no `eval`, no allocation).
 *
 * @module portcullis
 */
export type {
  AndNode,
  AnyExpressionNode,
  ArgumentNode,
  CallNode,
  CompareNode,
  ExpressionNode,
  LiteralNode,
  LiteralValue,
  NotNode,
  OrNode,
  ReferenceNode,
  ReferenceRoot,
  ValueNode,
} from './ast.js';
export { expr } from './builder.js';
export {
  compileExpression,
  parseExpression,
  type AsyncCompiledExpression,
  type CompiledExpression,
  type CompiledExpressionOf,
  type SyncCompiledExpression,
} from './compile.js';
export type { ExpressionExplanation } from './explain.js';
export { ExpressionSyntaxError, type ExpressionErrorCode } from './errors.js';
export type { CheckExpression } from './expression-types.js';
export type {
  AsyncExpressionFunction,
  ExpressionFunction,
  ExpressionFunctionArguments,
  ExpressionFunctions,
  FunctionSignatures,
  ParameterKind,
  ParameterValue,
  SyncExpressionFunction,
} from './functions.js';
export type { CompileExpressionOptions, ParseExpressionOptions } from './options.js';
export { printExpression } from './print.js';
