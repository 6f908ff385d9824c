import { types } from 'node:util';
import type { AuthenticatedUser } from '../core/authenticated-user.js';
import type { ReferenceNode, ValueNode } from './ast.js';
import { PathVariables } from './path-variables.js';

/** Resolves a value of an expression for one evaluation. @internal */
export type Resolve = (user: AuthenticatedUser | null, args: unknown) => unknown;

const { isProxy } = types;
const { getPrototypeOf, prototype: objectPrototype } = Object;
const { propertyIsEnumerable, __lookupGetter__: lookupGetter } = objectPrototype as {
  propertyIsEnumerable: (this: object, key: string) => boolean;
  __lookupGetter__: (this: object, key: string) => unknown;
};
const arrayPrototype: unknown = Array.prototype;

/**
 * The own, enumerable data property `key` of a plain object, an array or a
 * null-prototype object; `undefined` for anything else. It never runs user code:
 * proxies are skipped before any trap could run, getters are never invoked, class
 * instances (`Map`, `Date`, …) and other realms' objects are opaque, and inherited
 * names (`__proto__`, `constructor`, `toString`) are missing unless they are real
 * own data properties (as `JSON.parse` can make `__proto__`).
 *
 * Allocation-free: `propertyIsEnumerable` (own and enumerable) and
 * `__lookupGetter__` (which stops at the own property) read the property's
 * attributes without building a descriptor object; the value is then read only
 * when it is a data property (or an accessor without a getter, which reads as
 * `undefined` without running anything).
 *
 * @internal
 */
export function ownData(container: unknown, key: string): unknown {
  if (typeof container !== 'object' || container === null || isProxy(container)) return undefined;
  const prototype: unknown = getPrototypeOf(container);
  if (prototype !== objectPrototype && prototype !== null && prototype !== arrayPrototype) {
    return undefined;
  }
  if (
    !propertyIsEnumerable.call(container, key) ||
    lookupGetter.call(container, key) !== undefined
  ) {
    return undefined;
  }
  return (container as Record<string, unknown>)[key];
}

/** Walks a path of own data properties; `undefined` as soon as a step is missing. @internal */
export function walk(value: unknown, path: readonly string[]): unknown {
  for (let i = 0; i < path.length && value !== undefined; i++) {
    value = ownData(value, path[i] as string);
  }
  return value;
}

/**
 * The equality of `==`: strict equality of two strings, numbers, booleans or `null`;
 * two missing values (`undefined`) are equal; objects, arrays, functions, symbols,
 * bigints and `NaN` equal nothing, themselves included.
 *
 * @internal
 */
export function equals(a: unknown, b: unknown): boolean {
  if (a !== b) return false;
  const type = typeof a;
  return type === 'string' || type === 'number' || type === 'boolean' || a == null;
}

/** The resolver of a literal or a reference. @internal */
export function resolver(node: ValueNode): Resolve {
  if (node.type === 'literal') {
    const { value } = node;
    return () => value;
  }
  return referenceResolver(node);
}

function referenceResolver({ root, path }: ReferenceNode): Resolve {
  if (root === 'path') {
    // URL rules evaluate with the captured variables in place of args; elsewhere
    // (tRPC, GraphQL) there is no path and the reference reads as missing.
    const name = path[0] ?? '';
    return (_user, variables) =>
      variables instanceof PathVariables ? variables.get(name) : undefined;
  }
  if (root === 'args') {
    const [first, second] = path;
    if (path.length === 1 && first !== undefined) return (_user, args) => ownData(args, first);
    if (path.length === 2 && first !== undefined && second !== undefined) {
      return (_user, args) => ownData(ownData(args, first), second);
    }
    return (_user, args) => walk(args, path);
  }
  const [field] = path;
  if (field === 'username') return (user) => (user == null ? undefined : user.username);
  if (field === 'authenticationMethod') {
    return (user) => (user == null ? undefined : user.authenticationMethod);
  }
  const names = path.slice(1);
  return (user) => (user == null ? undefined : walk(user.attributes, names));
}
