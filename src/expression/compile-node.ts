import type { AnyExpressionNode, CallNode, ExpressionNode, ReferenceNode } from './ast.js';
import { asyncJunction, asyncNot } from './async-logic.js';
import { customCheck, type FailureReport } from './custom.js';
import type { CustomFunction } from './functions.js';
import { andCheck, compareCheck, notCheck, orCheck, type MaybeAsyncCheck } from './logic.js';
import { atomCheck, atomOf, junctionAtoms, junctionCheck, type Check } from './rights.js';
import { resolver } from './values.js';

/** A compiled node: synchronous (`check` returns a boolean) or not. @internal */
export type CompiledNode =
  | { readonly async: false; readonly check: Check }
  | { readonly async: true; readonly check: MaybeAsyncCheck };

/** What compiling needs besides the tree. @internal */
export interface CompileContext {
  readonly custom: ReadonlyMap<string, CustomFunction>;
  readonly report: FailureReport;
}

const yes: Check = () => true;
const no: Check = () => false;
const authenticated: Check = (user) => user != null;
const anonymous: Check = (user) => user == null;

const sync = (check: Check): CompiledNode => ({ async: false, check });

/**
 * Compiles a validated tree into closures, one per node; runs of role and
 * authority checks fold into one closure over precomputed name lists. Nothing is
 * allocated when a synchronous check runs.
 *
 * @internal
 */
export function compileNode(node: ExpressionNode, context: CompileContext): CompiledNode {
  switch (node.type) {
    case 'literal':
      return sync(node.value ? yes : no);
    case 'compare':
      return sync(compareCheck(node));
    case 'call':
      return compileCall(node, context);
    case 'not': {
      const atom = atomOf(node);
      if (atom) return sync(atomCheck(atom));
      const inner = compileNode(node.operand, context);
      return inner.async
        ? { async: true, check: asyncNot(inner.check) }
        : sync(notCheck(inner.check));
    }
    case 'and':
    case 'or': {
      const atom = atomOf(node);
      if (atom) return sync(atomCheck(atom));
      const atoms = junctionAtoms(node.type, node.operands);
      if (atoms) return sync(junctionCheck(node.type, atoms));
      const parts = node.operands.map((operand) => compileNode(operand, context));
      if (parts.some((part) => part.async)) {
        return {
          async: true,
          check: asyncJunction(
            node.type,
            parts.map((part) => part.check),
          ),
        };
      }
      const checks = parts.map((part) => part.check as Check);
      return sync(node.type === 'and' ? andCheck(checks) : orCheck(checks));
    }
  }
}

function compileCall(node: CallNode, context: CompileContext): CompiledNode {
  switch (node.name) {
    case 'isAuthenticated':
      return sync(authenticated);
    case 'isAnonymous':
      return sync(anonymous);
    case 'permitAll':
      return sync(yes);
    case 'denyAll':
      return sync(no);
  }
  const atom = atomOf(node);
  if (atom) return sync(atomCheck(atom));
  const custom = context.custom.get(node.name);
  if (custom === undefined) throw new RangeError(`unknown function ${node.name}`);
  const check = customCheck(custom, node.args.map(resolver), context.report);
  return custom.async ? { async: true, check } : sync(check as Check);
}

/** Whether the tree reads `args`. @internal */
export function readsArgs(node: AnyExpressionNode): boolean {
  return references(node).some((reference) => reference.root === 'args');
}

/** The names of the `path.<name>` variables the tree reads, each once, in order. @internal */
export function pathVariableNames(node: AnyExpressionNode): readonly string[] {
  const names = references(node)
    .filter((reference) => reference.root === 'path')
    .map((reference) => reference.path[0] ?? '');
  return Object.freeze([...new Set(names)]);
}

/** Every reference of the tree, left to right. */
function references(node: AnyExpressionNode, into: ReferenceNode[] = []): ReferenceNode[] {
  switch (node.type) {
    case 'reference':
      into.push(node);
      break;
    case 'literal':
      break;
    case 'call':
      for (const arg of node.args) references(arg, into);
      break;
    case 'compare':
      references(node.left, into);
      references(node.right, into);
      break;
    case 'not':
      references(node.operand, into);
      break;
    case 'and':
    case 'or':
      for (const operand of node.operands) references(operand, into);
      break;
  }
  return into;
}
