import type { AuthenticatedUser } from '../core/authenticated-user.js';
import type { CallNode, ExpressionNode } from './ast.js';

/** A compiled synchronous condition. @internal */
export type Check = (user: AuthenticatedUser | null, args: unknown) => boolean;

/**
 * "The user holds any of `names`" (in its roles or its authorities), or the opposite
 * when `negated`. The anonymous user holds nothing, so an atom is `negated` for it.
 *
 * @internal
 */
export interface Atom {
  readonly authorities: boolean;
  readonly names: readonly string[];
  readonly negated: boolean;
}

/**
 * A condition made only of role and authority checks, `isAuthenticated()`,
 * `isAnonymous()`, `not` and junctions folds into atoms, so it compiles to one
 * closure that does just the set lookups a hand-written check would do.
 *
 * The single atom of a node: `hasRole`, `hasAnyRole`, `hasAuthority`,
 * `hasAnyAuthority`, the negation of an atom, or an `or` of positive atoms on the
 * same set (`hasRole('A') or hasAnyRole('B', 'C')` is `hasAnyRole('A', 'B', 'C')`).
 *
 * @internal
 */
export function atomOf(node: ExpressionNode): Atom | undefined {
  switch (node.type) {
    case 'call':
      return callAtom(node);
    case 'not': {
      const inner = atomOf(node.operand);
      return inner && { ...inner, negated: !inner.negated };
    }
    case 'or': {
      const atoms = node.operands.map(atomOf);
      const [first] = atoms;
      if (
        first === undefined ||
        atoms.some((a) => !a || a.negated || a.authorities !== first.authorities)
      ) {
        return undefined;
      }
      const names = new Set(atoms.flatMap((a) => (a ? a.names : [])));
      return { authorities: first.authorities, names: [...names], negated: false };
    }
    default:
      return undefined;
  }
}

function callAtom(node: CallNode): Atom | undefined {
  const authorities = node.name === 'hasAuthority' || node.name === 'hasAnyAuthority';
  if (!authorities && node.name !== 'hasRole' && node.name !== 'hasAnyRole') return undefined;
  const names = [...new Set(node.args.map((arg) => (arg.type === 'literal' ? arg.value : '')))];
  return { authorities, names: names.map(internalize), negated: false };
}

/**
 * A junction of atoms (and `isAuthenticated()` / `isAnonymous()`, which only decide
 * the anonymous user's answer): the atoms and the answer for the anonymous user, or
 * `undefined` when an operand is anything else.
 *
 * @internal
 */
export function junctionAtoms(
  type: 'and' | 'or',
  operands: readonly ExpressionNode[],
): { atoms: Atom[]; anonymous: boolean; authenticated: boolean } | undefined {
  const atoms: Atom[] = [];
  // What the junction answers for an anonymous and for any authenticated user, before atoms.
  let anonymous = type === 'and';
  let authenticated = type === 'and';
  for (const operand of operands) {
    const name = operand.type === 'call' && operand.args.length === 0 ? operand.name : '';
    if (name === 'isAuthenticated' || name === 'isAnonymous') {
      const forAnonymous = name === 'isAnonymous';
      if (type === 'and') {
        anonymous &&= forAnonymous;
        authenticated &&= !forAnonymous;
      } else {
        anonymous ||= forAnonymous;
        authenticated ||= !forAnonymous;
      }
      continue;
    }
    const atom = atomOf(operand);
    if (atom === undefined) return undefined;
    atoms.push(atom);
    anonymous = type === 'and' ? anonymous && atom.negated : anonymous || atom.negated;
  }
  return { atoms, anonymous, authenticated };
}

/**
 * The canonical (internalized) copy of a string: a parsed name is a slice of the
 * expression, and a `Set` lookup compares it character by character with the
 * user's names, while the canonical copy is usually the very same string and
 * compares at once. Property keys are internalized, hence the detour.
 *
 * @internal
 */
export function internalize(name: string): string {
  return Object.keys({ [name]: true })[0] ?? name;
}

/** Whether `held` contains any of `names`. @internal */
export function holdsAny(held: ReadonlySet<string>, names: readonly string[]): boolean {
  for (let i = 0; i < names.length; i++) if (held.has(names[i] as string)) return true;
  return false;
}

/** The check of one atom. @internal */
export function atomCheck({ authorities, names, negated }: Atom): Check {
  const [only] = names;
  if (names.length === 1 && only !== undefined) {
    if (authorities) {
      return negated
        ? (user) => user == null || !user.authorities.has(only)
        : (user) => user != null && user.authorities.has(only);
    }
    return negated
      ? (user) => user == null || !user.roles.has(only)
      : (user) => user != null && user.roles.has(only);
  }
  if (authorities) {
    return negated
      ? (user) => user == null || !holdsAny(user.authorities, names)
      : (user) => user != null && holdsAny(user.authorities, names);
  }
  return negated
    ? (user) => user == null || !holdsAny(user.roles, names)
    : (user) => user != null && holdsAny(user.roles, names);
}

/** The names of one set that an `and` of atoms needs, split by how they are checked. */
interface AllPlan {
  /** Every one must be held (positive single-name atoms). */
  readonly all: readonly string[];
  /** None may be held (negated atoms: `not hasAnyRole(a, b)` is "neither a nor b"). */
  readonly none: readonly string[];
  /** At least one of each group must be held (positive many-name atoms). */
  readonly any: readonly (readonly string[])[];
}

/** The names of one set that make an `or` of atoms true, split by how they are checked. */
interface AnyPlan {
  /** Holding one of these is enough (positive atoms). */
  readonly some: readonly string[];
  /** Lacking one of these is enough (negated single-name atoms). */
  readonly missing: readonly string[];
  /** Holding none of a group is enough (negated many-name atoms). */
  readonly noneOf: readonly (readonly string[])[];
}

function allPlan(atoms: readonly Atom[]): AllPlan {
  const plan = { all: [] as string[], none: [] as string[], any: [] as (readonly string[])[] };
  for (const { names, negated } of atoms) {
    if (negated) plan.none.push(...names);
    else if (names.length === 1) plan.all.push(...names);
    else plan.any.push(names);
  }
  return plan;
}

function anyPlan(atoms: readonly Atom[]): AnyPlan {
  const plan = {
    some: [] as string[],
    missing: [] as string[],
    noneOf: [] as (readonly string[])[],
  };
  for (const { names, negated } of atoms) {
    if (!negated) plan.some.push(...names);
    else if (names.length === 1) plan.missing.push(...names);
    else plan.noneOf.push(names);
  }
  return plan;
}

/** Whether `held` passes an {@link AllPlan}. */
function passesAll(held: ReadonlySet<string>, { all, none, any }: AllPlan): boolean {
  for (let i = 0; i < all.length; i++) if (!held.has(all[i] as string)) return false;
  for (let i = 0; i < none.length; i++) if (held.has(none[i] as string)) return false;
  for (let i = 0; i < any.length; i++)
    if (!holdsAny(held, any[i] as readonly string[])) return false;
  return true;
}

/** Whether `held` passes an {@link AnyPlan}. */
function passesAny(held: ReadonlySet<string>, { some, missing, noneOf }: AnyPlan): boolean {
  for (let i = 0; i < some.length; i++) if (held.has(some[i] as string)) return true;
  for (let i = 0; i < missing.length; i++) if (!held.has(missing[i] as string)) return true;
  for (let i = 0; i < noneOf.length; i++)
    if (!holdsAny(held, noneOf[i] as readonly string[])) return true;
  return false;
}

/**
 * The check of a junction of atoms. Role and authority checks are pure, so their
 * order does not matter: the names are grouped per set and per kind of check, and
 * the closure runs a few tight loops of set lookups. For an authenticated user,
 * `and` needs every atom (`or` any one) on top of `authenticated`; the anonymous
 * answer is fixed.
 *
 * @internal
 */
export function junctionCheck(
  type: 'and' | 'or',
  {
    atoms,
    anonymous,
    authenticated,
  }: { atoms: Atom[]; anonymous: boolean; authenticated: boolean },
): Check {
  const roleAtoms = atoms.filter((atom) => !atom.authorities);
  const authorityAtoms = atoms.filter((atom) => atom.authorities);
  if (type === 'and') {
    if (!authenticated) return (user) => user == null && anonymous;
    const roles = allPlan(roleAtoms);
    const authorities = allPlan(authorityAtoms);
    return (user) =>
      user == null
        ? anonymous
        : passesAll(user.roles, roles) && passesAll(user.authorities, authorities);
  }
  if (authenticated) return (user) => user != null || anonymous;
  const roles = anyPlan(roleAtoms);
  const authorities = anyPlan(authorityAtoms);
  return (user) =>
    user == null
      ? anonymous
      : passesAny(user.roles, roles) || passesAny(user.authorities, authorities);
}
