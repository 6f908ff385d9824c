import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  isObjectType,
  Kind,
  locatedError,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type GraphQLError,
  type GraphQLObjectType,
  type GraphQLSchema,
  type InlineFragmentNode,
  type SelectionSetNode,
} from 'graphql';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import { ConfigurationError, UnavailableError } from '../core/errors.js';
import { isPromiseLike } from '../lib/promise.js';
import type { FieldRule } from './analyze.js';
import { denial } from './guard.js';
import type { Settings } from './options.js';
import { ruleOf, settingsOf } from './transformer.js';
import { unavailableError } from './unavailable.js';

/** What {@link checkOperation} reads of an execution (a subset of `ExecutionArgs`). */
export interface OperationArgs {
  /** A schema made by the transformer of `securityDirectives`. */
  readonly schema: GraphQLSchema;
  /** The parsed and validated document. */
  readonly document: DocumentNode;
  /** The raw variables, as the client sent them. */
  readonly variableValues?: { readonly [name: string]: unknown } | null | undefined;
  readonly operationName?: string | null | undefined;
  /** The GraphQL context, where the user is found. */
  readonly contextValue?: unknown;
}

/** One field to check: its rule, arguments and where it is in the response. */
interface Check {
  readonly rule: FieldRule;
  readonly args: Record<string, unknown>;
  readonly node: FieldNode;
  readonly path: readonly (string | number)[];
}

/**
 * Checks every protected field an operation can reach, before any resolver runs,
 * for all-or-nothing authorization: the errors of the denied fields (each with its
 * path, locations and `extensions.code`), or an empty list when the whole
 * operation is allowed. Fields under `@skip` / `@include` follow the variables;
 * a field selected on an interface or union is checked for every type it could
 * resolve to (the strictest wins). The field guards still run during execution.
 *
 * An operation that execution would refuse anyway (unknown operation name, invalid
 * variables) yields no errors here: execution reports it.
 *
 * @throws ConfigurationError when the schema did not go through the transformer
 *
 * @example
 * ```ts
 * const errors = await checkOperation({ schema, document, variableValues, contextValue });
 * if (errors.length > 0) return { errors };
 * ```
 */
export function checkOperation(args: OperationArgs): Promise<readonly GraphQLError[]> {
  const settings = settingsOf(args.schema);
  if (settings === undefined) {
    throw new ConfigurationError(
      'schema',
      'has no security directives applied; pass it through securityDirectives().transformer',
    );
  }
  const checks = collectChecks(args);
  if (checks.length === 0) return Promise.resolve([]);
  const user = settings.userOf(args.contextValue);
  return Promise.resolve(user).then((u) => decide(checks, u, settings, args.contextValue));
}

async function decide(
  checks: readonly Check[],
  user: AuthenticatedUser | null,
  settings: Settings,
  context: unknown,
): Promise<readonly GraphQLError[]> {
  const outcomes = checks.map((check) => check.rule.expression.evaluate(user, check.args));
  const errors: GraphQLError[] = [];
  for (const [index, check] of checks.entries()) {
    const outcome = outcomes[index];
    let passed: boolean | undefined;
    try {
      passed = isPromiseLike(outcome) ? await outcome : outcome;
    } catch (error) {
      // A custom function past its deadline: the operation fails closed (503).
      if (!(error instanceof UnavailableError)) throw error;
      errors.push(unavailableError(error, [check.node], check.path));
      continue;
    }
    if (passed === true) continue;
    const error = denial(check.rule, settings, user, context, check.path, [check.node], check.args);
    // A custom error from `createError` is located here; the default one already is.
    errors.push(locatedError(error, [check.node], check.path));
  }
  return errors;
}

/** Walks the operation's selections (fragments included) and lists the protected fields. */
function collectChecks(args: OperationArgs): Check[] {
  const { schema, document } = args;
  const operation = getOperationAST(document, args.operationName);
  if (!operation) return [];
  const root = schema.getRootType(operation.operation);
  if (!root) return [];
  const variables = coercedVariables(
    getVariableValues(schema, operation.variableDefinitions ?? [], args.variableValues ?? {}),
  );
  if (variables === undefined) return [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
  }
  const checks: Check[] = [];
  // A selection set already walked for the same runtime types adds nothing: this
  // keeps nested fragment spreads linear instead of exponential.
  const walked = new Map<SelectionSetNode, Set<string>>();

  const walk = (
    selectionSet: SelectionSetNode,
    types: readonly GraphQLObjectType[],
    path: readonly (string | number)[],
  ): void => {
    const key = types.map((t) => t.name).join(',');
    let seen = walked.get(selectionSet);
    if (!seen) walked.set(selectionSet, (seen = new Set()));
    if (seen.has(key)) return;
    seen.add(key);
    for (const selection of selectionSet.selections) {
      if (!included(selection, variables)) continue;
      if (selection.kind === Kind.FIELD) {
        field(selection, types, path);
      } else {
        const fragment =
          selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
        if (!fragment) continue;
        walk(fragment.selectionSet, narrow(types, fragment.typeCondition?.name.value), path);
      }
    }
  };

  const field = (
    node: FieldNode,
    types: readonly GraphQLObjectType[],
    path: readonly (string | number)[],
  ): void => {
    const name = node.name.value;
    // Introspection (`__typename`, `__schema`, `__type`) is never restricted.
    if (name.startsWith('__')) return;
    const selectionSet = node.selectionSet;
    let at: readonly (string | number)[] | undefined;
    const children = selectionSet ? new Set<GraphQLObjectType>() : undefined;
    for (const type of types) {
      const definition = type.getFields()[name];
      if (!definition) continue;
      const rule = ruleOf(definition);
      if (rule) {
        at ??= [...path, node.alias?.value ?? name];
        try {
          checks.push({
            rule,
            args: getArgumentValues(definition, node, variables),
            node,
            path: at,
          });
        } catch {
          // Invalid arguments: execution refuses the field before its resolver runs.
        }
      }
      if (children)
        for (const child of objectTypes(getNamedType(definition.type))) children.add(child);
    }
    if (selectionSet && children && children.size > 0) {
      walk(selectionSet, [...children], at ?? [...path, node.alias?.value ?? name]);
    }
  };

  const narrow = (
    types: readonly GraphQLObjectType[],
    condition: string | undefined,
  ): readonly GraphQLObjectType[] => {
    if (condition === undefined) return types;
    const type = schema.getType(condition);
    if (isObjectType(type)) return types.filter((t) => t === type);
    if (isAbstractType(type)) return types.filter((t) => schema.isSubType(type, t));
    return [];
  };

  const objectTypes = (type: unknown): readonly GraphQLObjectType[] => {
    if (isObjectType(type)) return [type];
    if (isAbstractType(type)) return schema.getPossibleTypes(type);
    return [];
  };

  walk(operation.selectionSet, [root], []);
  return checks;
}

/**
 * The variables as the installed graphql's `getArgumentValues` and `getDirectiveValues` take
 * them: graphql 16, the coerced values; graphql 17, `{ sources, coerced }`.
 */
type Variables = NonNullable<Parameters<typeof getArgumentValues>[2]>;

/**
 * The coerced variables out of `getVariableValues`'s result, or `undefined` when they do not
 * coerce (execution refuses the operation then). graphql 16 answers `{ coerced }`, graphql 17
 * `{ variableValues }`: reading only `coerced` under 17 would drop every variable, so
 * `@skip(if: $v)` / `@include(if: $v)` and the arguments the rules read would be misread.
 */
function coercedVariables(result: {
  readonly errors?: unknown;
  readonly coerced?: unknown;
  readonly variableValues?: unknown;
}): Variables | undefined {
  if (result.errors !== undefined) return undefined;
  const variables = result.variableValues ?? result.coerced;
  return variables === undefined ? undefined : (variables as Variables);
}

function included(
  node: FieldNode | InlineFragmentNode | FragmentSpreadNode,
  variables: Variables,
): boolean {
  if (!node.directives || node.directives.length === 0) return true;
  const skip = getDirectiveValues(GraphQLSkipDirective, node, variables);
  if (skip?.['if'] === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node, variables);
  return include?.['if'] !== false;
}

/** Any `execute` or `subscribe` function: graphql-js's, or an executor's. */
export type ExecuteLike<R> = (args: ExecutionArgs) => R | PromiseLike<R>;

/**
 * Wraps `execute` (or `subscribe`) so that an operation reaching any field the
 * user may not see is refused as a whole, before any resolver runs, with the
 * errors of {@link checkOperation} and no `data`. For graphql-http's `execute` /
 * `subscribe` options, or any server that takes an execute function.
 *
 * @example
 * ```ts
 * import { execute } from 'graphql';
 * import { createHandler } from 'graphql-http/lib/use/http';
 * createHandler({ schema, context, execute: withOperationCheck(execute) });
 * ```
 */
export function withOperationCheck<R>(
  execute: ExecuteLike<R>,
): (args: ExecutionArgs) => Promise<R | ExecutionResult> {
  if (typeof execute !== 'function') {
    throw new ConfigurationError('execute', 'must be a function (args) => result');
  }
  return async (args) => {
    const errors = await checkOperation(args);
    if (errors.length > 0) return { errors };
    return await execute(args);
  };
}

/** The part of an Envelop plugin {@link useOperationCheck} fills (GraphQL Yoga, Envelop). */
export interface OperationCheckPlugin {
  readonly onExecute: (payload: EnvelopHookPayload) => Promise<void>;
  readonly onSubscribe: (payload: EnvelopHookPayload) => Promise<void>;
}

/** What the plugin reads of Envelop's `onExecute` / `onSubscribe` payload. */
export interface EnvelopHookPayload {
  readonly args: ExecutionArgs;
  readonly setResultAndStopExecution: (result: ExecutionResult) => void;
}

/**
 * An Envelop plugin (GraphQL Yoga, Envelop) that refuses an operation as a whole
 * when it reaches any field the user may not see: see {@link checkOperation}.
 *
 * @example
 * ```ts
 * const yoga = createYoga({ schema, context, plugins: [useOperationCheck()] });
 * ```
 */
export function useOperationCheck(): OperationCheckPlugin {
  const hook = async ({ args, setResultAndStopExecution }: EnvelopHookPayload): Promise<void> => {
    const errors = await checkOperation(args);
    if (errors.length > 0) setResultAndStopExecution({ errors });
  };
  return Object.freeze({ onExecute: hook, onSubscribe: hook });
}
