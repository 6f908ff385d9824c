/** A straightforward reference interpreter the compiled checks are compared with. */
import type { AuthenticatedUser } from '../../src/core/index.js';
import type { CallNode, ExpressionNode, ValueNode } from '../../src/expression/index.js';

class Failed extends Error {}

/** Reads a property the way the language does: own enumerable data of plain objects and arrays. */
function get(container: unknown, key: string): unknown {
  if (typeof container !== 'object' || container === null) return undefined;
  const prototype: unknown = Object.getPrototypeOf(container);
  if (!(prototype === Object.prototype || prototype === null || Array.isArray(container))) {
    return undefined;
  }
  if (!Object.prototype.hasOwnProperty.call(container, key)) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(container, key);
  return descriptor?.enumerable === true && 'value' in descriptor ? descriptor.value : undefined;
}

function resolve(node: ValueNode, who: AuthenticatedUser | null, args: unknown): unknown {
  if (node.type === 'literal') return node.value;
  let value: unknown;
  let path = node.path;
  if (node.root === 'args') value = args;
  else if (who === null) return undefined;
  else if (path[0] === 'attributes') {
    value = who.attributes;
    path = path.slice(1);
  } else return path[0] === 'username' ? who.username : who.authenticationMethod;
  for (const key of path) value = get(value, key);
  return value;
}

function strings(node: CallNode): string[] {
  return node.args.map((arg) => (arg.type === 'literal' ? arg.value : ''));
}

/** The reference interpreter: a direct recursive walk of the tree. */
function walk(node: ExpressionNode, who: AuthenticatedUser | null, args: unknown): boolean {
  switch (node.type) {
    case 'literal':
      return node.value;
    case 'not':
      return !walk(node.operand, who, args);
    case 'and':
      return node.operands.every((operand) => walk(operand, who, args));
    case 'or':
      return node.operands.some((operand) => walk(operand, who, args));
    case 'compare': {
      const readsPrincipal = [node.left, node.right].some(
        (side) => side.type === 'reference' && side.root === 'principal',
      );
      if (readsPrincipal && who === null) return false;
      const left = resolve(node.left, who, args);
      const right = resolve(node.right, who, args);
      const primitive =
        left === undefined ||
        left === null ||
        ['string', 'number', 'boolean'].includes(typeof left);
      const equal = left === right && primitive;
      return node.operator === '==' ? equal : !equal;
    }
    case 'call': {
      const names = strings(node);
      switch (node.name) {
        case 'hasRole':
        case 'hasAnyRole':
          return who !== null && names.some((n) => who.roles.has(n));
        case 'hasAuthority':
        case 'hasAnyAuthority':
          return who !== null && names.some((n) => who.authorities.has(n));
        case 'isAuthenticated':
          return who !== null;
        case 'isAnonymous':
          return who === null;
        case 'permitAll':
          return true;
        case 'denyAll':
          return false;
        case 'isText':
          return typeof resolve(node.args[0] as ValueNode, who, args) === 'string';
        case 'named':
          return who?.username === names[0];
        case 'boom':
          throw new Failed();
        case 'later':
          return resolve(node.args[0] as ValueNode, who, args) === 'alice';
        default:
          throw new Error(`unknown function ${node.name}`);
      }
    }
  }
}

/** What the reference interpreter answers: a failing function anywhere it runs denies. */
export function reference(
  node: ExpressionNode,
  who: AuthenticatedUser | null,
  args: unknown,
): boolean {
  try {
    return walk(node, who, args);
  } catch (error) {
    if (error instanceof Failed) return false;
    throw error;
  }
}

/** Whether the tree calls the asynchronous function. */
export function callsAsync(node: ExpressionNode): boolean {
  switch (node.type) {
    case 'call':
      return node.name === 'later';
    case 'not':
      return callsAsync(node.operand);
    case 'and':
    case 'or':
      return node.operands.some(callsAsync);
    default:
      return false;
  }
}
