/**
 * The SDL of the security directives, as shipped in
 * `schema-directives/security.graphql` (a test keeps the two identical). Add it to
 * your type definitions; {@link securityDirectives} returns it as `typeDefs`.
 *
 * ```graphql
 * directive @secured(roles: [String!]!) on FIELD_DEFINITION | OBJECT | INTERFACE
 * directive @rolesAllowed(roles: [String!]!) on FIELD_DEFINITION | OBJECT | INTERFACE
 * directive @preAuthorize(expr: String, authority: String) on FIELD_DEFINITION | OBJECT | INTERFACE
 * directive @permitAll on FIELD_DEFINITION | OBJECT | INTERFACE
 * directive @denyAll on FIELD_DEFINITION | OBJECT | INTERFACE
 * directive @authenticated on FIELD_DEFINITION | OBJECT | INTERFACE
 * ```
 */
export const securityDirectivesTypeDefs: string = `# The security directives of portcullis (portcullis/graphql). Add these definitions
# to your type definitions (or use \`securityDirectives().typeDefs\`), then pass the
# executable schema through \`securityDirectives().transformer\`.
#
# Each may stand on a field, an object type or an interface. A field's directive
# overrides its type's; a type's applies to all its fields; an interface's applies
# to the fields of the types that implement it. A type's or interface's also guards
# every field that returns it (through lists and non-null), before it resolves.

"Users holding any one of the roles (a single role may be written as a string)."
directive @secured(roles: [String!]!) on FIELD_DEFINITION | OBJECT | INTERFACE

"Users holding any one of the roles: the same as @secured (Java EE's name)."
directive @rolesAllowed(roles: [String!]!) on FIELD_DEFINITION | OBJECT | INTERFACE

"""
Users who pass a security expression (\`hasRole('USER') and args.authorId ==
principal.username\`; the field's arguments are \`args\`), and/or hold an authority.
With both, both must hold.
"""
directive @preAuthorize(expr: String, authority: String) on FIELD_DEFINITION | OBJECT | INTERFACE

"Everyone, anonymous callers too."
directive @permitAll on FIELD_DEFINITION | OBJECT | INTERFACE

"Nobody."
directive @denyAll on FIELD_DEFINITION | OBJECT | INTERFACE

"Any authenticated user (Apollo Federation's name)."
directive @authenticated on FIELD_DEFINITION | OBJECT | INTERFACE
`;

/** The names of the security directives (without `@`). */
export type SecurityDirectiveName =
  'secured' | 'rolesAllowed' | 'preAuthorize' | 'permitAll' | 'denyAll' | 'authenticated';

/** The names of the security directives, in the order of the SDL. @internal */
export const DIRECTIVE_NAMES: readonly SecurityDirectiveName[] = Object.freeze([
  'secured',
  'rolesAllowed',
  'preAuthorize',
  'permitAll',
  'denyAll',
  'authenticated',
]);

/**
 * The arguments each directive must declare, by name and type, when a schema
 * defines it (a schema that defines `@secured` differently is refused rather than
 * read wrongly). @internal
 */
export const DIRECTIVE_ARGUMENTS: Readonly<
  Record<SecurityDirectiveName, Readonly<Record<string, string>>>
> = Object.freeze({
  secured: { roles: '[String!]!' },
  rolesAllowed: { roles: '[String!]!' },
  preAuthorize: { expr: 'String', authority: 'String' },
  permitAll: {},
  denyAll: {},
  authenticated: {},
});
