import { makeExecutableSchema } from '@graphql-tools/schema';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  SchemaSecurityError,
  checkSchemaSecurity,
  securityDirectives,
  type SchemaSecurityProblem,
} from '../../src/graphql/index.js';

const { typeDefs, transformer } = securityDirectives();

function problemsOf(sdl: string): readonly SchemaSecurityProblem[] {
  const schema = makeExecutableSchema({ typeDefs: [typeDefs, sdl] });
  try {
    transformer(schema);
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaSecurityError);
    expect((error as SchemaSecurityError).code).toBe('ERR_GRAPHQL_SCHEMA_SECURITY');
    return (error as SchemaSecurityError).problems;
  }
  throw new Error('the transformer accepted the schema');
}

const summary = (problems: readonly SchemaSecurityProblem[]) =>
  problems.map((p) => `${p.coordinate} ${p.directive} ${p.code}`);

describe('a schema with bad security directives', () => {
  it('fails the transformer with every problem and its schema coordinate', () => {
    const problems = problemsOf(`
      type Query {
        posts: [String] @preAuthorize(expr: "hasRole('USER') and hasAuthorty('posts:read')")
        empty: String @secured(roles: [])
        blank: String @rolesAllowed(roles: ["ADMIN", ""])
        nothing: String @preAuthorize
        blankExpr: String @preAuthorize(expr: "  ")
        both: String @secured(roles: "A") @denyAll
        mine(id: ID): String @preAuthorize(expr: "args.authorId == principal.username")
        unbalanced: String @preAuthorize(expr: "(hasRole('A')")
        owned(id: ID): String @preAuthorize(expr: "path.id == principal.username")
      }
      type Stats @preAuthorize(expr: "args.year == '2026'") { total(year: String): Int, other: Int }
      interface Node @preAuthorize(expr: "principal.password == 'x'") { id: ID }
    `);
    expect(summary(problems)).toEqual([
      'Query.posts @preAuthorize ERR_EXPRESSION_UNKNOWN_FUNCTION',
      'Query.empty @secured ERR_GRAPHQL_DIRECTIVE_ARGUMENT',
      'Query.blank @rolesAllowed ERR_GRAPHQL_DIRECTIVE_ARGUMENT',
      'Query.nothing @preAuthorize ERR_GRAPHQL_DIRECTIVE_ARGUMENT',
      'Query.blankExpr @preAuthorize ERR_GRAPHQL_DIRECTIVE_ARGUMENT',
      'Query.both @secured ERR_GRAPHQL_DIRECTIVE_CONFLICT',
      'Query.mine @preAuthorize ERR_GRAPHQL_UNKNOWN_ARGUMENT',
      'Query.unbalanced @preAuthorize ERR_EXPRESSION_UNBALANCED_PARENTHESES',
      'Query.owned @preAuthorize ERR_GRAPHQL_UNKNOWN_ARGUMENT',
      'Stats.other @preAuthorize ERR_GRAPHQL_UNKNOWN_ARGUMENT',
      'Node @preAuthorize ERR_EXPRESSION_UNKNOWN_REFERENCE',
    ]);
  });

  it('says what is wrong, with the excerpt of a bad expression and the SDL location', () => {
    const [unknown, other] = problemsOf(`type Query {
  posts: [String] @preAuthorize(expr: "hasRol('USER')")
  mine(id: ID): String @preAuthorize(expr: "args.authorId == principal.username")
}`);
    expect(unknown?.message).toContain('"hasRol"');
    expect(unknown?.message).toContain('hasRole');
    expect(unknown?.message).toContain("hasRol('USER')\n^");
    expect(unknown?.location).toMatchObject({ line: 2, column: 19 });
    expect(other?.message).toBe(
      'args.authorId is not an argument of Query.mine (its arguments: id)',
    );
  });

  it('reports a type-level rule reading an argument some of its fields lack, per field', () => {
    const problems = problemsOf(`
      type Query { stats: Stats }
      type Stats @preAuthorize(expr: "args.year == '2026'") { total(year: String): Int, other: Int }
    `);
    // Query.stats returns Stats, so the type's rule guards it too, with its arguments.
    expect(problems.map((p) => p.message)).toEqual([
      'args.year is not an argument of Query.stats (its arguments: none), from default policy authenticated and @preAuthorize on type Stats',
      'args.year is not an argument of Stats.other (its arguments: none), from @preAuthorize on type Stats',
    ]);
  });

  it('lists all problems in the error message, one per line', () => {
    try {
      transformer(
        makeExecutableSchema({
          typeDefs: [typeDefs, 'type Query { a: Int @secured(roles: []) b: Int @preAuthorize }'],
        }),
      );
      expect.unreachable();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toMatch(/^2 problems with the security directives of the schema:\n/u);
      expect(message).toContain('Query.a @secured: roles must name at least one role');
      expect(message).toContain('Query.b @preAuthorize: needs expr, authority or both');
    }
  });

  it('refuses a schema defining a security directive with other arguments', () => {
    const schema = buildSchema(`
      directive @secured(role: String) on FIELD_DEFINITION
      type Query { a: Int @secured(role: "ADMIN") }
    `);
    const problems = checkSchemaSecurity(schema);
    expect(summary(problems)).toEqual(['@secured @secured ERR_GRAPHQL_DIRECTIVE_DEFINITION']);
    expect(() => transformer(schema)).toThrow(SchemaSecurityError);
  });

  it('refuses list values of the wrong type in code-first extensions', () => {
    const schema = buildSchema('type Query { a: Int }');
    const field = schema.getQueryType()!.getFields()['a']!;
    (field as { extensions: object }).extensions = { directives: { secured: { roles: [1] } } };
    expect(summary(checkSchemaSecurity(schema))).toEqual([
      'Query.a @secured ERR_GRAPHQL_DIRECTIVE_ARGUMENT',
    ]);
  });

  it('accepts a schema without problems', () => {
    const schema = makeExecutableSchema({
      typeDefs: [typeDefs, 'type Query { a: Int @secured(roles: "A") b: Int }'],
    });
    expect(checkSchemaSecurity(schema)).toEqual([]);
    expect(checkSchemaSecurity(schema, { defaultPolicy: 'denyAll' })).toEqual([]);
  });
});
