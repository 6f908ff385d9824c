import { PortcullisError } from '../core/errors.js';
import type { ExpressionErrorCode } from '../expression/index.js';

/** The stable codes of a {@link SchemaSecurityProblem}. */
export type SchemaSecurityProblemCode =
  /** A directive argument that cannot be read: no role, an empty role, `@preAuthorize` without `expr` or `authority`. */
  | 'ERR_GRAPHQL_DIRECTIVE_ARGUMENT'
  /** Two security directives on one field or type. */
  | 'ERR_GRAPHQL_DIRECTIVE_CONFLICT'
  /** The schema defines a security directive with other arguments than portcullis's. */
  | 'ERR_GRAPHQL_DIRECTIVE_DEFINITION'
  /** An expression reads `args.<name>` where the field has no argument `<name>`. */
  | 'ERR_GRAPHQL_UNKNOWN_ARGUMENT'
  /** `@rateLimit(limit: "…")` names a limit the `rateLimits` option does not define. */
  | 'ERR_GRAPHQL_UNKNOWN_RATE_LIMIT'
  /** The expression itself does not compile (see `ExpressionSyntaxError`). */
  | ExpressionErrorCode;

/** Where in an SDL source a problem is: 1-based line and column. */
export interface SchemaLocation {
  /** The name of the SDL source (a file name for `check-schema`; `GraphQL request` when unnamed). */
  readonly source: string;
  readonly line: number;
  readonly column: number;
}

/** One problem with the security directives of a schema. */
export interface SchemaSecurityProblem {
  /** The schema coordinate: `Query.posts`, `AdminStats`, or `@secured` for a definition. */
  readonly coordinate: string;
  /** The directive concerned, e.g. `@preAuthorize`. */
  readonly directive: string;
  readonly code: SchemaSecurityProblemCode;
  /** What is wrong; for an expression, with the excerpt and caret of `ExpressionSyntaxError`. */
  readonly message: string;
  /** Where the directive is written, when the schema was built from SDL. */
  readonly location: SchemaLocation | undefined;
}

/**
 * The security directives of a schema cannot be applied: thrown by the transformer
 * of {@link securityDirectives} with every problem found (not only the first), each
 * with its schema coordinate, so a bad schema fails at start-up with one complete
 * report.
 *
 * @example
 * ```text
 * SchemaSecurityError: 2 problems with the security directives of the schema:
 *   Query.posts @preAuthorize: Unknown function "hasRol" (did you mean "hasRole"?) at column 1 …
 *   AdminStats @secured: roles must name at least one role
 * ```
 */
export class SchemaSecurityError extends PortcullisError {
  override readonly code = 'ERR_GRAPHQL_SCHEMA_SECURITY';
  /** Every problem found, in schema order. */
  readonly problems: readonly SchemaSecurityProblem[];

  constructor(problems: readonly SchemaSecurityProblem[]) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(
      `${count} with the security directives of the schema:\n${problems.map(formatProblem).join('\n')}`,
    );
    this.problems = Object.freeze([...problems]);
  }
}

/**
 * One problem as a line (and the expression excerpt, indented, when there is one):
 * `source:line:column Query.posts @preAuthorize: message`.
 */
export function formatProblem(problem: SchemaSecurityProblem): string {
  const where = problem.location
    ? `${problem.location.source}:${problem.location.line}:${problem.location.column} `
    : '';
  const [first = '', ...rest] = problem.message.split('\n');
  const lines = [`  ${where}${problem.coordinate} ${problem.directive}: ${first}`];
  for (const line of rest) lines.push(`    ${line}`);
  return lines.join('\n');
}
