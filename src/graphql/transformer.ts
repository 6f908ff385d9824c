import {
  defaultFieldResolver,
  GraphQLSchema,
  isSchema,
  type GraphQLField,
  type GraphQLFieldConfig,
} from 'graphql';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { ConfigurationError } from '../core/errors.js';
import { analyzeSchema, type FieldRule } from './analyze.js';
import { securityDirectivesTypeDefs } from './directives.js';
import { SchemaSecurityError, type SchemaSecurityProblem } from './errors.js';
import { guardResolver } from './guard.js';
import {
  analyzeRateLimits,
  limitField,
  rateLimitDirectiveTypeDefs,
  type RateLimitAnalysis,
} from './rate-limits.js';
import { resolveSettings, type SecurityDirectivesOptions, type Settings } from './options.js';

/** What {@link securityDirectives} returns (the graphql-tools convention). */
export interface SecurityDirectives {
  /** The SDL of the directives, to add to your type definitions. */
  readonly typeDefs: string;
  /**
   * Returns a new schema whose protected fields check their rule before resolving.
   * Every rule is checked and compiled now; all problems are thrown together.
   * Apply it last, after any other transformer that replaces resolvers.
   *
   * @throws SchemaSecurityError listing every problem, with schema coordinates
   * @throws ConfigurationError when the schema already went through a security transformer
   */
  readonly transformer: (schema: GraphQLSchema) => GraphQLSchema;
}

/** The key of portcullis's entries in schema and field `extensions`. @internal */
export const EXTENSION_KEY = 'portcullis';

/** Rules that portcullis put in field extensions (a user's own `extensions.portcullis` is not one). */
const ownRules = new WeakSet<FieldRule>();
/** The settings of schemas a transformer made. */
const ownSettings = new WeakSet<Settings>();

/**
 * The security directives for an SDL-first schema: `typeDefs` to add to your type
 * definitions, and a `transformer` that applies them (with `mapSchema` and
 * `getDirective` from `@graphql-tools/utils`). Only fields with a rule (directly,
 * through their type or an interface, or through a deny-by-default policy) are
 * wrapped; every other field keeps its resolver untouched.
 *
 * @throws ConfigurationError for invalid options
 *
 * @example
 * ```ts
 * import { makeExecutableSchema } from '@graphql-tools/schema';
 * import { securityDirectives } from 'portcullis/graphql';
 *
 * const { typeDefs: securityTypeDefs, transformer } = securityDirectives();
 * const schema = transformer(
 *   makeExecutableSchema({
 *     typeDefs: [securityTypeDefs, `
 *       type Query {
 *         health: String @permitAll
 *         posts: [Post!]! @preAuthorize(expr: "hasRole('USER') and hasAuthority('posts:read')")
 *       }`],
 *     resolvers,
 *   }),
 * );
 * ```
 */
export function securityDirectives(options?: SecurityDirectivesOptions): SecurityDirectives {
  const settings = resolveSettings(options);
  ownSettings.add(settings);
  return Object.freeze({
    typeDefs:
      settings.rateLimits === undefined
        ? securityDirectivesTypeDefs
        : `${securityDirectivesTypeDefs}\n${rateLimitDirectiveTypeDefs}`,
    transformer: (schema: GraphQLSchema) => applySecurity(schema, settings),
  });
}

/**
 * Checks the security directives of a schema without transforming it: every
 * problem the transformer would throw, with coordinates and SDL locations (what
 * `portcullis check-schema` prints). An empty list means the schema is fine.
 *
 * @throws ConfigurationError for invalid options or a value that is not a schema
 */
export function checkSchemaSecurity(
  schema: GraphQLSchema,
  options?: SecurityDirectivesOptions,
): readonly SchemaSecurityProblem[] {
  requireSchema(schema);
  const settings = resolveSettings(options);
  return [...analyzeSchema(schema, settings).problems, ...rateLimitsOf(schema, settings).problems];
}

function applySecurity(schema: GraphQLSchema, settings: Settings): GraphQLSchema {
  requireSchema(schema);
  if (settingsOf(schema) !== undefined) {
    throw new ConfigurationError(
      'schema',
      'already went through a security directives transformer; apply it once, last',
    );
  }
  const { rules, problems } = analyzeSchema(schema, settings);
  const limited = rateLimitsOf(schema, settings);
  if (problems.length + limited.problems.length > 0) {
    throw new SchemaSecurityError([...problems, ...limited.problems]);
  }
  const subscription = schema.getSubscriptionType()?.name;
  const mapped = mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (config, fieldName, typeName) => {
      const rule = rules.get(typeName)?.get(fieldName);
      const root = typeName === subscription;
      const guarded = rule ? guardField(config, rule, settings, root) : config;
      // The limits run first: a resolution the rule refuses counts too.
      const limits = limited.limits.get(typeName)?.get(fieldName);
      return limits ? limitField(guarded, limits, settings, root) : guarded;
    },
  });
  return new GraphQLSchema({
    ...mapped.toConfig(),
    extensions: { ...mapped.extensions, [EXTENSION_KEY]: settings },
  });
}

/** The `@rateLimit` analysis, when the settings name rate limits. */
function rateLimitsOf(schema: GraphQLSchema, settings: Settings): RateLimitAnalysis {
  return settings.rateLimits === undefined
    ? { limits: new Map(), problems: [] }
    : analyzeRateLimits(schema, settings.rateLimits);
}

function guardField(
  config: GraphQLFieldConfig<unknown, unknown>,
  rule: FieldRule,
  settings: Settings,
  subscriptionRoot: boolean,
): GraphQLFieldConfig<unknown, unknown> {
  ownRules.add(rule);
  return {
    ...config,
    resolve: guardResolver(rule, config.resolve ?? defaultFieldResolver, settings),
    // A subscription is refused before its source stream is created, not only per event.
    ...(subscriptionRoot
      ? { subscribe: guardResolver(rule, config.subscribe ?? defaultFieldResolver, settings, true) }
      : {}),
    extensions: { ...config.extensions, [EXTENSION_KEY]: rule },
  };
}

function requireSchema(schema: unknown): asserts schema is GraphQLSchema {
  if (!isSchema(schema)) {
    throw new ConfigurationError(
      'schema',
      'must be a GraphQLSchema (from the same graphql module)',
    );
  }
}

/** The settings of a schema made by a security transformer, if it is one. @internal */
export function settingsOf(schema: GraphQLSchema): Settings | undefined {
  const value = (schema.extensions as Record<string, unknown>)[EXTENSION_KEY];
  return ownSettings.has(value as Settings) ? (value as Settings) : undefined;
}

/** The rule a transformer gave a field, if any. @internal */
export function ruleOf(field: GraphQLField<unknown, unknown>): FieldRule | undefined {
  const value = (field.extensions as Record<string, unknown>)[EXTENSION_KEY];
  return ownRules.has(value as FieldRule) ? (value as FieldRule) : undefined;
}
