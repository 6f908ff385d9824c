/**
 * One query selecting 100 scalar fields, 10 of them protected, executed in one
 * process through graphql-js's `execute` on: (a) the bare schema, (b) the same
 * SDL through portcullis's security directives, (c) graphql-shield with the
 * equivalent rules (graphql-middleware's `applyMiddleware`), and (d) portcullis
 * with the all-or-nothing `withOperationCheck`. The variants run interleaved, in
 * rounds; each keeps its best round (and its median, for the noise).
 */
import { deepStrictEqual } from 'node:assert/strict';
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { AuthenticatedUser, User } from 'portcullis';
import { fmt } from './lib.js';

const FIELDS = 100;
const ROUNDS = 7;
/** Wall time of one variant in one round, in nanoseconds (iterations calibrated per variant). */
const ROUND_NS = 300e6;
const EXPRESSION = "hasRole('USER') and hasAuthority('posts:read')";

const name = (i: number): string => `f${String(i).padStart(2, '0')}`;
/** Fields 0, 10, 20, … 90 are protected: the even tens by a role, the odd by an expression. */
const protectedBy = (i: number): 'role' | 'expression' | undefined =>
  i % 10 !== 0 ? undefined : i % 20 === 0 ? 'role' : 'expression';
const INDEXES = Array.from({ length: FIELDS }, (_, i) => i);
const PROTECTED = INDEXES.filter((i) => protectedBy(i) !== undefined);

const ITEM: Readonly<Record<string, number>> = Object.fromEntries(INDEXES.map((i) => [name(i), i]));
/** The root resolver; every `Item` field uses graphql-js's default resolver. */
const resolvers = { Query: { item: () => ITEM } };

const user = AuthenticatedUser.from(
  new User('alice', '').withRoles(['USER']).withAuthorities(['posts:read']),
);

interface Context {
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

type Run = (contextValue: Context) => unknown;

interface Variant {
  readonly name: string;
  readonly run: Run;
  /** Queries as an anonymous caller (10 denials) instead of the user who may see all. */
  readonly anonymous: boolean;
  /** Whether it is the portcullis directives alone (checked for synchronous results). */
  readonly directives: boolean;
}

/** The SDL (identical for every variant), the document, and the variants. */
function setup(lib: Libraries) {
  const { typeDefs: securityTypeDefs, transformer } = lib.securityDirectives();
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
  const document: DocumentNode = lib.parse(
    `query Item { item { ${INDEXES.map(name).join(' ')} } }`,
  );
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
    return lib.applyMiddleware(
      schema(),
      lib.shield({ Item: itemRules }, { fallbackRule: lib.allow }),
    );
  };

  const bare = schema();
  const secured = transformer(schema());
  const shieldContextual = shielded('contextual');
  const shieldNoCache = shielded('no_cache');
  for (const s of [bare, secured, shieldContextual, shieldNoCache]) {
    const errors = lib.validate(s, document);
    if (errors.length > 0) throw new Error(`invalid document: ${errors[0]?.message ?? ''}`);
  }
  const on =
    (s: GraphQLSchema): Run =>
    (contextValue) =>
      lib.execute({ schema: s, document, contextValue });
  const checked = lib.withOperationCheck(lib.execute);
  const variant = (label: string, run: Run, anonymous = false, directives = false): Variant => ({
    name: label,
    run,
    anonymous,
    directives,
  });
  const variants = [
    variant('(a) no security', on(bare)),
    variant('(b) portcullis directives', on(secured), false, true),
    variant("(c) graphql-shield, cache 'contextual'", on(shieldContextual)),
    variant("(c′) graphql-shield, cache 'no_cache'", on(shieldNoCache)),
    variant('(d) portcullis + withOperationCheck', (contextValue) =>
      checked({ schema: secured, document, contextValue }),
    ),
    variant('(b) portcullis, anonymous: 10 denials', on(secured), true, true),
    variant("(c) graphql-shield 'contextual', anonymous: 10 denials", on(shieldContextual), true),
  ];
  return { variants, checked, secured, document };
}

const isPromise = (value: unknown): value is Promise<unknown> => value instanceof Promise;

/** A fresh context per query, as a server makes one per request (shield caches in it). */
const contextOf = (variant: Variant): Context => ({ user: variant.anonymous ? null : user });

/**
 * Checks every variant before anything is timed: the same 100 fields for the
 * user; for an anonymous caller, errors on exactly the 10 protected fields (the 90
 * others still resolve), and the operation check refusing the whole operation.
 * Returns whether the portcullis schema answered synchronously.
 */
async function verify({
  variants,
  checked,
  secured,
  document,
}: ReturnType<typeof setup>): Promise<boolean> {
  const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;
  const open = Object.fromEntries(
    INDEXES.map((i) => [name(i), protectedBy(i) === undefined ? i : null]),
  );
  const deniedPaths = PROTECTED.map((i) => `item.${name(i)}`);
  let synchronous = true;
  for (const variant of variants) {
    const returned = variant.run(contextOf(variant));
    if (variant.directives && isPromise(returned)) synchronous = false;
    const result = (await returned) as ExecutionResult;
    if (!variant.anonymous) {
      deepStrictEqual(plain(result), { data: { item: ITEM } }, variant.name);
      continue;
    }
    const paths = (result.errors ?? []).map((e) => e.path?.join('.') ?? '').sort();
    deepStrictEqual(paths, deniedPaths, `${variant.name}: denied fields`);
    deepStrictEqual(plain(result.data), { item: open }, `${variant.name}: data`);
    if (variant.directives) {
      const codes = new Set(result.errors?.map((e) => e.extensions['code']));
      deepStrictEqual([...codes], ['UNAUTHENTICATED'], `${variant.name}: codes`);
    }
  }
  const refused = await checked({ schema: secured, document, contextValue: { user: null } });
  if ('data' in refused || refused.errors?.length !== PROTECTED.length) {
    throw new Error('withOperationCheck did not refuse the anonymous operation');
  }
  return synchronous;
}

/** Nanoseconds per query over `iterations` queries, one at a time (awaited when async). */
async function timeQueries(variant: Variant, iterations: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    const result = variant.run(contextOf(variant));
    if (isPromise(result)) await result;
  }
  return Number(process.hrtime.bigint() - start) / iterations;
}

export interface GraphqlRow {
  readonly name: string;
  readonly bestNs: number;
  readonly medianNs: number;
}

export interface GraphqlResult {
  readonly rows: readonly GraphqlRow[];
  /** Whether `execute` on the portcullis schema returned a plain result (no promise). */
  readonly synchronous: boolean;
  /** NODE_ENV when graphql-js loaded. */
  readonly mode: string;
}

export async function benchGraphql(): Promise<GraphqlResult> {
  const lib = await libraries();
  const bench = setup(lib);
  const synchronous = await verify(bench);
  // Warm up, and calibrate each variant to about ROUND_NS per round.
  const iterations = new Map<Variant, number>();
  for (const variant of bench.variants) {
    await timeQueries(variant, 300);
    const ns = await timeQueries(variant, 300);
    iterations.set(variant, Math.max(100, Math.round(ROUND_NS / ns)));
  }
  const samples = new Map<Variant, number[]>(bench.variants.map((v) => [v, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of bench.variants) {
      samples.get(variant)!.push(await timeQueries(variant, iterations.get(variant)!));
    }
  }
  const rows = bench.variants.map((variant) => {
    const sorted = samples.get(variant)!.sort((x, y) => x - y);
    return {
      name: variant.name,
      bestNs: sorted[0]!,
      medianNs: sorted[Math.floor(sorted.length / 2)]!,
    };
  });
  return { rows, synchronous, mode: lib.mode };
}

export function printGraphql({ rows, synchronous, mode }: GraphqlResult): void {
  const us = (ns: number): string => fmt(ns / 1000, 1);
  const bare = rows[0]!;
  console.log(
    `\n## GraphQL: one query of ${FIELDS} fields, ${PROTECTED.length} protected, ` +
      `graphql-js execute (NODE_ENV=${mode}), µs per query, best of ${ROUNDS} rounds\n`,
  );
  console.log('| variant | µs/query | median | overhead over (a), µs | median overhead |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of rows) {
    const best = row === bare ? '–' : us(row.bestNs - bare.bestNs);
    const median = row === bare ? '–' : us(row.medianNs - bare.medianNs);
    console.log(`| ${row.name} | ${us(row.bestNs)} | ${us(row.medianNs)} | ${best} | ${median} |`);
  }
  const [, portcullis, shieldContextual, shieldNoCache] = rows;
  const ratio = (of: 'bestNs' | 'medianNs', shield: GraphqlRow): string => {
    const value = (portcullis![of] - bare[of]) / (shield[of] - bare[of]);
    const shown = value <= 0 ? '≤ 0 (no overhead beyond the noise)' : fmt(value, 3);
    return `${shown}, goal ≤ 1/3 ${value <= 1 / 3 ? 'achieved' : 'not achieved'}`;
  };
  console.log(
    `\noverhead (b) / overhead (c, 'contextual'): ${ratio('bestNs', shieldContextual!)} ` +
      `(medians: ${ratio('medianNs', shieldContextual!)}); ` +
      `against (c′, 'no_cache'): ${ratio('bestNs', shieldNoCache!)}.`,
  );
  console.log(
    `(b) answers synchronously (execute returns no promise): ${synchronous ? 'yes' : 'NO'}.`,
  );
}
