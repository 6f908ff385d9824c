/**
 * The GraphQL benchmark's schema, shared by the in-process runs (graphql.ts) and the
 * HTTP servers (servers/graphql.ts): `Item` with 100 `Int` fields, 10 of them
 * protected (even tens by a role, odd tens by an expression), as (a) the bare schema,
 * (b) the same SDL through portcullis's directives and (c) graphql-shield with the
 * equivalent rules on the same `ctx.user`.
 */
import type { DocumentNode, GraphQLSchema, execute } from 'graphql';
import type { AuthenticatedUser } from 'portcullis';
import type { createGraphQLContext, withOperationCheck } from 'portcullis/graphql';

export const FIELDS = 100;
export const EXPRESSION = "hasRole('USER') and hasAuthority('posts:read')";

export const name = (i: number): string => `f${String(i).padStart(2, '0')}`;
/** Fields 0, 10, 20, … 90 are protected: the even tens by a role, the odd by an expression. */
export const protectedBy = (i: number): 'role' | 'expression' | undefined =>
  i % 10 !== 0 ? undefined : i % 20 === 0 ? 'role' : 'expression';
export const INDEXES = Array.from({ length: FIELDS }, (_, i) => i);
export const PROTECTED = INDEXES.filter((i) => protectedBy(i) !== undefined);

export const ITEM: Readonly<Record<string, number>> = Object.fromEntries(
  INDEXES.map((i) => [name(i), i]),
);
/** The root resolver; every `Item` field uses graphql-js's default resolver. */
const resolvers = { Query: { item: () => ITEM } };

/** The one query every variant runs: every field of the item. */
export const QUERY = `query Item { item { ${INDEXES.map(name).join(' ')} } }`;

export interface Context {
  readonly user: AuthenticatedUser | null;
}

/**
 * graphql-js checks `instanceof` across realms (slowly) unless NODE_ENV is
 * `production` when it loads, so the GraphQL libraries load here, once the mode
 * is set: production, as the benchmark servers run, unless NODE_ENV says otherwise.
 */
async function libraries() {
  const before = process.env['NODE_ENV'];
  const mode = before ?? 'production';
  process.env['NODE_ENV'] = mode;
  try {
    const [graphql, tools, middleware, graphqlShield, portcullis] = await Promise.all([
      import('graphql'),
      import('@graphql-tools/schema'),
      import('graphql-middleware'),
      import('graphql-shield'),
      import('portcullis/graphql'),
    ]);
    return { ...graphql, ...tools, ...middleware, ...graphqlShield, ...portcullis, mode };
  } finally {
    if (before === undefined) delete process.env['NODE_ENV'];
  }
}
type Libraries = Awaited<ReturnType<typeof libraries>>;

export interface Schemas {
  readonly document: DocumentNode;
  readonly bare: GraphQLSchema;
  readonly secured: GraphQLSchema;
  /** The directives with `securityContext: false` (resolvers run as they are). */
  readonly securedLean: GraphQLSchema;
  readonly shielded: (cache: 'contextual' | 'no_cache') => GraphQLSchema;
}

/** The schemas, and what the benchmarks use of graphql-js and portcullis/graphql. */
export interface GraphqlBench extends Schemas {
  readonly execute: typeof execute;
  readonly withOperationCheck: typeof withOperationCheck;
  readonly createGraphQLContext: typeof createGraphQLContext;
  /** NODE_ENV when graphql-js loaded. */
  readonly mode: string;
}

/** Loads the libraries (in production mode, see `libraries`) and builds the schemas. */
export async function loadGraphql(): Promise<GraphqlBench> {
  const lib = await libraries();
  return {
    ...schemas(lib),
    execute: lib.execute,
    withOperationCheck: lib.withOperationCheck,
    createGraphQLContext: lib.createGraphQLContext,
    mode: lib.mode,
  };
}

/** The three schemas from one SDL, and the parsed query (validated against each). */
function schemas(lib: Libraries): Schemas {
  // What has no directive is public here, as graphql-shield's `fallbackRule: allow`
  // below: both sides check the same fields.
  const { typeDefs: securityTypeDefs, transformer } = lib.securityDirectives({
    defaultPolicy: 'permitAll',
  });
  const lean = lib.securityDirectives({ defaultPolicy: 'permitAll', securityContext: false });
  const fields = INDEXES.map((i) => {
    const by = protectedBy(i);
    const directive =
      by === 'role'
        ? ' @secured(roles: "USER")'
        : by === 'expression'
          ? ` @preAuthorize(expr: "${EXPRESSION}")`
          : '';
    return `  ${name(i)}: Int${directive}`;
  });
  const typeDefs = [
    securityTypeDefs,
    `type Query { item: Item }\ntype Item {\n${fields.join('\n')}\n}`,
  ];
  const document: DocumentNode = lib.parse(QUERY);
  const schema = () => lib.makeExecutableSchema({ typeDefs, resolvers });

  /** The same checks as the directives, as graphql-shield rules on the same user. */
  const shielded = (cache: 'contextual' | 'no_cache'): GraphQLSchema => {
    const isUser = lib.rule({ cache })(
      (_p, _a, ctx: Context) => ctx.user?.hasRole('USER') === true,
    );
    const canReadPosts = lib.rule({ cache })(
      (_p, _a, ctx: Context) =>
        ctx.user?.hasRole('USER') === true && ctx.user.hasAuthority('posts:read'),
    );
    const itemRules = Object.fromEntries(
      PROTECTED.map((i) => [name(i), protectedBy(i) === 'role' ? isUser : canReadPosts]),
    );
    const shieldedSchema = lib.applyMiddleware(
      schema(),
      lib.shield({ Item: itemRules }, { fallbackRule: lib.allow }),
    );
    check(shieldedSchema);
    return shieldedSchema;
  };
  const check = (s: GraphQLSchema) => {
    const errors = lib.validate(s, document);
    if (errors.length > 0) throw new Error(`invalid document: ${errors[0]?.message ?? ''}`);
  };
  const bare = schema();
  const secured = transformer(schema());
  const securedLean = lean.transformer(schema());
  check(bare);
  check(secured);
  check(securedLean);
  return { document, bare, secured, securedLean, shielded };
}
