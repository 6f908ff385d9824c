import {
  defaultFieldResolver,
  getLocation,
  isInterfaceType,
  isObjectType,
  responsePathAsArray,
  type ASTNode,
  type GraphQLField,
  type GraphQLFieldConfig,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import { getDirective } from '@graphql-tools/utils';
import { ConfigurationError, UnavailableError } from '../core/errors.js';
import { consumeLimits } from '../lib/consume-limits.js';
import { contextRequest } from '../http/context-request.js';
import { isPromiseLike } from '../lib/promise.js';
import { didYouMean } from '../lib/suggest.js';
import { RateLimit } from '../throttle/rate-limit.js';
import type { SchemaLocation, SchemaSecurityProblem } from './errors.js';
import type { Settings } from './options.js';
import { unavailableError } from './unavailable.js';

/**
 * The SDL of the `@rateLimit` directive, as shipped in
 * `schema-directives/rate-limit.graphql` (a test keeps the two identical).
 * `securityDirectives({ rateLimits })` adds it to its `typeDefs`.
 *
 * ```graphql
 * directive @rateLimit(limit: String!) repeatable on FIELD_DEFINITION
 * ```
 */
export const rateLimitDirectiveTypeDefs: string = `# The rate-limit directive of portcullis (portcullis/graphql). Its limits are
# defined in code and named in the \`rateLimits\` option of \`securityDirectives\`,
# whose \`typeDefs\` then include this definition.

"""
Counts each resolution of the field against the named rate limit (repeat it for
several); past the limit the field answers a TOO_MANY_REQUESTS error.
"""
directive @rateLimit(limit: String!) repeatable on FIELD_DEFINITION
`;

const DIRECTIVE = 'rateLimit';

type Resolver = GraphQLFieldResolver<unknown, unknown, Record<string, unknown>>;

/** The validated `rateLimits` option: the limits by the name the SDL gives them. @internal */
export function resolveRateLimits(value: unknown): ReadonlyMap<string, RateLimit> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigurationError(
      'rateLimits',
      'must be an object of rate limits by name: { search: rateLimit({ ... }) }',
    );
  }
  const limits = new Map<string, RateLimit>();
  for (const [name, limit] of Object.entries(value)) {
    if (!(limit instanceof RateLimit)) {
      throw new ConfigurationError(
        'rateLimits',
        `${JSON.stringify(name.slice(0, 64))} must be a RateLimit, e.g. rateLimit({ window: '1m', max: 100 })`,
      );
    }
    limits.set(name, limit);
  }
  return limits;
}

/** The limits of each object-type field that has `@rateLimit`, and every problem found. @internal */
export interface RateLimitAnalysis {
  readonly limits: ReadonlyMap<string, ReadonlyMap<string, readonly RateLimit[]>>;
  readonly problems: readonly SchemaSecurityProblem[];
}

/**
 * Reads the `@rateLimit` directives of a schema against the named limits: a name the
 * limits lack, and a schema defining `@rateLimit` with other arguments, are problems.
 * An interface field's `@rateLimit` applies to the field of every implementing type
 * (as the security directives do), added to the type's own.
 *
 * @internal
 */
export function analyzeRateLimits(
  schema: GraphQLSchema,
  named: ReadonlyMap<string, RateLimit>,
): RateLimitAnalysis {
  const problems: SchemaSecurityProblem[] = [];
  const limits = new Map<string, Map<string, readonly RateLimit[]>>();
  const definition = schema.getDirective(DIRECTIVE);
  if (definition) {
    const args = definition.args.map((a) => `${a.name}: ${String(a.type)}`);
    if (args.length !== 1 || args[0] !== 'limit: String!') {
      problems.push({
        coordinate: `@${DIRECTIVE}`,
        directive: `@${DIRECTIVE}`,
        code: 'ERR_GRAPHQL_DIRECTIVE_DEFINITION',
        message: `the schema defines @${DIRECTIVE} with other arguments than portcullis's (limit: String!); use securityDirectives({ rateLimits }).typeDefs`,
        location: locationOf(definition.astNode),
      });
      return { limits, problems };
    }
  }
  const reported = new Set<string>();
  const read = (field: GraphQLField<unknown, unknown>, coordinate: string): RateLimit[] => {
    const found: RateLimit[] = [];
    const uses = (getDirective(schema, field, DIRECTIVE) ?? []) as Record<string, unknown>[];
    for (const use of uses) {
      const name = typeof use.limit === 'string' ? use.limit : '';
      const limit = named.get(name);
      if (limit !== undefined) {
        if (!found.includes(limit)) found.push(limit);
        continue;
      }
      // An interface field is read once for each implementer: reported once.
      if (reported.has(`${coordinate}\u0000${name}`)) continue;
      reported.add(`${coordinate}\u0000${name}`);
      problems.push({
        coordinate,
        directive: `@${DIRECTIVE}`,
        code: 'ERR_GRAPHQL_UNKNOWN_RATE_LIMIT',
        message: `no rate limit is named ${JSON.stringify(name.slice(0, 64))} in the rateLimits option${didYouMean(name, named.keys())}`,
        location: locationOf(
          field.astNode?.directives?.find((d) => d.name.value === DIRECTIVE) ?? field.astNode,
        ),
      });
    }
    return found;
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isInterfaceType(type)) {
      // Checked even when no type implements the interface.
      for (const field of Object.values(type.getFields()))
        read(field, `${type.name}.${field.name}`);
    }
    if (!isObjectType(type)) continue;
    const fields = new Map<string, readonly RateLimit[]>();
    for (const field of Object.values(type.getFields())) {
      const own = read(field, `${type.name}.${field.name}`);
      for (const face of type.getInterfaces()) {
        const inherited = face.getFields()[field.name];
        if (inherited === undefined) continue;
        for (const limit of read(inherited, `${face.name}.${field.name}`)) {
          if (!own.includes(limit)) own.push(limit);
        }
      }
      if (own.length > 0) fields.set(field.name, Object.freeze(own));
    }
    if (fields.size > 0) limits.set(type.name, fields);
  }
  return { limits, problems };
}

/**
 * A field whose resolution first counts against its limits (and, on the subscription
 * root, whose subscription does, once, not each event). Wrapped around the guarded
 * resolver, so that a denied resolution counts too.
 *
 * @internal
 */
export function limitField(
  config: GraphQLFieldConfig<unknown, unknown>,
  limits: readonly RateLimit[],
  settings: Settings,
  subscriptionRoot: boolean,
): GraphQLFieldConfig<unknown, unknown> {
  if (subscriptionRoot) {
    const subscribe = config.subscribe ?? defaultFieldResolver;
    return { ...config, subscribe: limitResolver(limits, subscribe, settings) };
  }
  const resolve = config.resolve ?? defaultFieldResolver;
  return { ...config, resolve: limitResolver(limits, resolve, settings) };
}

function limitResolver(
  limits: readonly RateLimit[],
  resolve: Resolver,
  settings: Settings,
): Resolver {
  return (source, args, context, info) => {
    const next = () => resolve(source, args, context, info);
    const count = (user: Awaited<ReturnType<Settings['userOf']>>): unknown => {
      let counted: Promise<void> | undefined;
      try {
        counted = consumeLimits(limits, { request: contextRequest(context), user });
      } catch (error) {
        throw refusal(error, info);
      }
      if (counted === undefined) return next();
      return counted.then(next, (error: unknown) => {
        throw refusal(error, info);
      });
    };
    const user = settings.userOf(context);
    return isPromiseLike(user) ? user.then(count) : count(user);
  };
}

/** The field's `TOO_MANY_REQUESTS` (or `SERVICE_UNAVAILABLE`) error; anything else as it is. */
function refusal(error: unknown, info: GraphQLResolveInfo): unknown {
  return error instanceof UnavailableError
    ? unavailableError(error, info.fieldNodes, responsePathAsArray(info.path))
    : error;
}

function locationOf(node: ASTNode | null | undefined): SchemaLocation | undefined {
  const loc = node?.loc;
  if (!loc) return undefined;
  const { line, column } = getLocation(loc.source, loc.start);
  return { source: loc.source.name, line, column };
}
