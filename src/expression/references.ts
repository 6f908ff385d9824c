import { didYouMean } from '../lib/suggest.js';
import { referenceNode as makeReference, type ReferenceNode, type ReferenceRoot } from './ast.js';
import type { Lexer, Token } from './lexer.js';

/** The readable fields of `principal`; `attributes` needs a further name. */
const PRINCIPAL_FIELDS = ['username', 'authenticationMethod', 'attributes'];
const SEGMENT = /^(?:[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+)$/u;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/u;

/** Why a reference path is invalid, and at which segment (-1: the root). @internal */
export interface ReferenceProblem {
  readonly segment: number;
  readonly problem: string;
}

/**
 * Checks a reference: `args.<path>` (at least one segment), `path.<name>` (one
 * identifier), `principal.username`,
 * `principal.authenticationMethod` or `principal.attributes.<name>(.<name>)*`.
 * Segments are identifiers or digits. `undefined` when valid.
 *
 * @internal
 */
export function checkReference(
  root: ReferenceRoot,
  path: readonly string[],
): ReferenceProblem | undefined {
  const bad = path.findIndex((segment) => !SEGMENT.test(segment));
  if (bad >= 0) {
    return { segment: bad, problem: 'A reference segment must be an identifier or an index' };
  }
  if (root === 'args') {
    return path.length === 0
      ? { segment: -1, problem: '"args" needs a path, e.g. args.postId' }
      : undefined;
  }
  if (root === 'path') {
    if (path.length === 0) {
      return { segment: -1, problem: '"path" needs a variable name, e.g. path.id' };
    }
    if (!IDENTIFIER.test(path[0] ?? '')) {
      return { segment: 0, problem: 'A path variable is named by an identifier, e.g. path.id' };
    }
    return path.length > 1 ? { segment: 1, problem: 'A path variable has no fields' } : undefined;
  }
  const [field] = path;
  if (field === undefined) {
    return { segment: -1, problem: '"principal" needs a field, e.g. principal.username' };
  }
  if (!PRINCIPAL_FIELDS.includes(field)) {
    return {
      segment: 0,
      problem: `Unknown field "principal.${field}" (readable: username, authenticationMethod, attributes.<name>)${didYouMean(field, PRINCIPAL_FIELDS)}`,
    };
  }
  if (field === 'attributes' && path.length === 1) {
    return {
      segment: -1,
      problem: '"principal.attributes" needs a name, e.g. principal.attributes.tenant',
    };
  }
  if (field !== 'attributes' && path.length > 1) {
    return { segment: 1, problem: `"principal.${field}" has no fields` };
  }
  return undefined;
}

/**
 * Parses the path of a reference whose root identifier was just read, and checks it.
 *
 * @internal
 */
export function referenceNode(lexer: Lexer, root: Token): ReferenceNode {
  const name = root.text as ReferenceRoot;
  const segments: Token[] = [];
  while (lexer.peek().kind === '.') {
    lexer.next();
    segments.push(lexer.segment());
  }
  const path = segments.map((segment) => segment.text);
  const problem = checkReference(name, path);
  if (problem !== undefined) {
    const at = segments[problem.segment] ?? root;
    throw lexer.error('ERR_EXPRESSION_UNKNOWN_REFERENCE', problem.problem, at.start);
  }
  return makeReference(name, path);
}
