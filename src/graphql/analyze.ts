import {
  getLocation,
  getNamedType,
  isAbstractType,
  isInterfaceType,
  isObjectType,
  type ASTNode,
  type DirectiveNode,
  type GraphQLField,
  type GraphQLInterfaceType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { getDirective } from '@graphql-tools/utils';
import type { SecurityEvents } from '../core/events.js';
import {
  compileExpression,
  expr,
  ExpressionSyntaxError,
  parseExpression,
  type CompiledExpression,
  type ExpressionFunctions,
  type ExpressionNode,
} from '../expression/index.js';
import { DIRECTIVE_ARGUMENTS, DIRECTIVE_NAMES, type SecurityDirectiveName } from './directives.js';
import type { SchemaLocation, SchemaSecurityProblem, SchemaSecurityProblemCode } from './errors.js';
import type { DefaultPolicy } from '../authorization/default-policy.js';

/** What the analysis needs of the options. @internal */
export interface AnalysisOptions {
  readonly defaultPolicy: DefaultPolicy;
  readonly functions: ExpressionFunctions | undefined;
  readonly events: SecurityEvents | undefined;
}

/** The effective rule of one field of an object type. @internal */
export interface FieldRule {
  /** `Type.field`. */
  readonly coordinate: string;
  /** Where the rule comes from: `@secured on Query.profile`, `@secured on type AdminStats`, … */
  readonly origin: string;
  /** The compiled rule; `description` is its canonical text. */
  readonly expression: CompiledExpression;
}

/** The rules by object type and field, and every problem found. @internal */
export interface Analysis {
  readonly rules: ReadonlyMap<string, ReadonlyMap<string, FieldRule>>;
  readonly problems: readonly SchemaSecurityProblem[];
}

/** A directive as written on a type or field: its expression tree, `null` for `@permitAll`. */
interface Declared {
  readonly directive: string;
  readonly node: ExpressionNode | null;
  readonly origin: string;
}

/** Declared, none, or unreadable (a problem was reported: the element denies). */
type Reading = Declared | undefined | typeof BROKEN;
const BROKEN = Symbol('broken');

type Element = GraphQLObjectType | GraphQLInterfaceType | GraphQLField<unknown, unknown>;

/** Fields that stay reachable under a deny-by-default policy (Apollo Federation). */
const FEDERATION_QUERY_FIELDS = new Set(['_service', '_entities']);
const FEDERATION_TYPES = new Set(['_Service']);

/**
 * Reads every security directive of a schema, checks and compiles every rule, and
 * returns the effective rule of each object-type field that has one, with all the
 * problems found. Precedence for a field of an object type: its own directive, then
 * its type's, then its interfaces' (each interface's field directive, else its
 * type directive; several interfaces all apply), then the default policy.
 *
 * Then the rule of the type the field returns (through lists and non-null) is added
 * to it (both must pass), so that a field returning a protected type is checked
 * before its resolver runs (Apollo Router's semantics of `@authenticated` and
 * `@requiresScopes` on types): an object type's or interface's type directive;
 * for an interface or union, also the rules of its possible types when every one
 * of them has a type directive (the user must pass at least one of them: a field
 * whose every possible result is closed to the user never runs). A field's own
 * `@permitAll` opens the field, not the type it returns.
 *
 * @internal
 */
export function analyzeSchema(schema: GraphQLSchema, options: AnalysisOptions): Analysis {
  return new Analyzer(schema, options).run();
}

class Analyzer {
  readonly #schema: GraphQLSchema;
  readonly #options: AnalysisOptions;
  readonly #problems: SchemaSecurityProblem[] = [];
  readonly #declared = new Map<Element, Reading>();
  readonly #compiled = new Map<string, CompiledExpression | typeof BROKEN>();
  readonly #checked = new Map<string, CompiledExpression | typeof BROKEN>();
  readonly #names: readonly SecurityDirectiveName[];

  constructor(schema: GraphQLSchema, options: AnalysisOptions) {
    this.#schema = schema;
    this.#options = options;
    this.#names = DIRECTIVE_NAMES.filter((name) => this.#checkDefinition(name));
  }

  run(): Analysis {
    const rules = new Map<string, Map<string, FieldRule>>();
    const queryType = this.#schema.getQueryType();
    for (const type of Object.values(this.#schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (isInterfaceType(type)) {
        // Interface fields never resolve; their rules are read for their implementers.
        this.#read(type, type.name);
        for (const field of Object.values(type.getFields())) {
          this.#checkField(field, `${type.name}.${field.name}`);
        }
      }
      if (!isObjectType(type)) continue;
      const fields = new Map<string, FieldRule>();
      const exempt = FEDERATION_TYPES.has(type.name);
      for (const field of Object.values(type.getFields())) {
        const coordinate = `${type.name}.${field.name}`;
        const federation =
          exempt || (type === queryType && FEDERATION_QUERY_FIELDS.has(field.name));
        const rule = this.#fieldRule(type, field, coordinate, federation);
        if (rule) fields.set(field.name, rule);
      }
      if (fields.size > 0) rules.set(type.name, fields);
    }
    return { rules, problems: this.#problems };
  }

  /** Reads the field's own directive and checks it against the field's arguments. */
  #checkField(field: GraphQLField<unknown, unknown>, coordinate: string): Reading {
    const declared = this.#read(field, coordinate);
    if (declared && declared !== BROKEN && declared.node) {
      this.#compile(declared, field, coordinate);
    }
    return declared;
  }

  #fieldRule(
    type: GraphQLObjectType,
    field: GraphQLField<unknown, unknown>,
    coordinate: string,
    federation: boolean,
  ): FieldRule | undefined {
    let declared = this.#checkField(field, coordinate);
    declared ??= this.#read(type, type.name);
    declared ??= this.#fromInterfaces(type, field);
    if (declared === BROKEN) return undefined;
    if (declared === undefined && !federation && this.#options.defaultPolicy !== 'permitAll') {
      const node =
        this.#options.defaultPolicy === 'denyAll' ? expr.denyAll() : expr.isAuthenticated();
      declared = {
        directive: 'defaultPolicy',
        node,
        origin: `default policy ${this.#options.defaultPolicy}`,
      };
    }
    // Federation's entry points stay reachable: the entities' own fields keep their rules.
    const returned = federation ? undefined : this.#returnedRule(field);
    if (returned === BROKEN) return undefined;
    const combined = combine(declared?.node == null ? undefined : declared, returned);
    if (combined === undefined) return undefined;
    const expression = this.#compile(combined, field, coordinate);
    if (expression === BROKEN) return undefined;
    return Object.freeze({ coordinate, origin: combined.origin, expression });
  }

  /**
   * The rule a field takes from the type it returns (see {@link analyzeSchema}):
   * the type directive of an object type or interface; for an interface or union,
   * also `any of` its possible types' type directives when every one has one.
   */
  #returnedRule(field: GraphQLField<unknown, unknown>): Declared | undefined | typeof BROKEN {
    const named = getNamedType(field.type);
    if (named.name.startsWith('__')) return undefined;
    const found: Declared[] = [];
    if (isObjectType(named) || isInterfaceType(named)) {
      const own = this.#read(named, named.name);
      if (own === BROKEN) return BROKEN;
      if (own?.node) found.push(own);
    }
    if (isAbstractType(named)) {
      const possible: Declared[] = [];
      let open = false;
      for (const member of this.#schema.getPossibleTypes(named)) {
        const rule = this.#read(member, member.name);
        if (rule === BROKEN) return BROKEN;
        if (rule?.node) possible.push(rule);
        else open = true;
      }
      const [first] = possible;
      if (!open && first !== undefined) {
        found.push(
          possible.length === 1
            ? first
            : {
                directive: possible.map((d) => d.directive).join(' '),
                node: expr.or(...possible.map((d) => d.node as ExpressionNode)),
                origin: `any of ${possible.map((d) => d.origin).join(', ')}`,
              },
        );
      }
    }
    return combine(...found);
  }

  /** The rule the type's interfaces give the field; several interfaces all apply. */
  #fromInterfaces(type: GraphQLObjectType, field: GraphQLField<unknown, unknown>): Reading {
    const found: Declared[] = [];
    for (const iface of type.getInterfaces()) {
      const inherited = iface.getFields()[field.name];
      let declared = inherited ? this.#read(inherited, `${iface.name}.${field.name}`) : undefined;
      declared ??= this.#read(iface, iface.name);
      if (declared === BROKEN) return BROKEN;
      if (declared) found.push(declared);
    }
    const restricting = found.filter((d) => d.node !== null);
    if (restricting.length === 0) return found[0];
    if (restricting.length === 1) return restricting[0];
    return {
      directive: restricting.map((d) => d.directive).join(' '),
      node: expr.and(...restricting.map((d) => d.node as ExpressionNode)),
      origin: restricting.map((d) => d.origin).join(' and '),
    };
  }

  /** The security directive written on a type or field (cached), after checking its arguments. */
  #read(element: Element, coordinate: string): Reading {
    if (this.#declared.has(element)) return this.#declared.get(element);
    const reading = this.#readUncached(element, coordinate);
    this.#declared.set(element, reading);
    return reading;
  }

  #readUncached(element: Element, coordinate: string): Reading {
    const found: { name: SecurityDirectiveName; args: Record<string, unknown> }[] = [];
    for (const name of this.#names) {
      let values: Record<string, unknown>[] | undefined;
      try {
        values = getDirective(this.#schema, element, name) as Record<string, unknown>[] | undefined;
      } catch (error) {
        this.#report(element, coordinate, name, 'ERR_GRAPHQL_DIRECTIVE_ARGUMENT', messageOf(error));
        return BROKEN;
      }
      for (const args of values ?? []) found.push({ name, args });
    }
    const [first, second] = found;
    if (first === undefined) return undefined;
    if (second !== undefined) {
      const names = found.map((d) => `@${d.name}`).join(', ');
      this.#report(
        element,
        coordinate,
        first.name,
        'ERR_GRAPHQL_DIRECTIVE_CONFLICT',
        `only one security directive may stand on ${coordinate}, found ${names}`,
      );
      return BROKEN;
    }
    const node = this.#node(element, coordinate, first.name, first.args);
    if (node === BROKEN) return BROKEN;
    const kind = isObjectType(element) ? 'type ' : isInterfaceType(element) ? 'interface ' : '';
    return { directive: `@${first.name}`, node, origin: `@${first.name} on ${kind}${coordinate}` };
  }

  /** The expression tree of a directive; `null` for `@permitAll`. */
  #node(
    element: Element,
    coordinate: string,
    name: SecurityDirectiveName,
    args: Record<string, unknown>,
  ): ExpressionNode | null | typeof BROKEN {
    const problem = (message: string): typeof BROKEN => {
      this.#report(element, coordinate, name, 'ERR_GRAPHQL_DIRECTIVE_ARGUMENT', message);
      return BROKEN;
    };
    switch (name) {
      case 'permitAll':
        return null;
      case 'denyAll':
        return expr.denyAll();
      case 'authenticated':
        return expr.isAuthenticated();
      case 'secured':
      case 'rolesAllowed': {
        const roles = listOf(args['roles']);
        if (roles === undefined) return problem('roles must be a list of non-empty strings');
        if (roles.length === 0) return problem('roles must name at least one role');
        const [role] = roles;
        return roles.length === 1 && role !== undefined
          ? expr.hasRole(role)
          : expr.hasAnyRole(...roles);
      }
      case 'preAuthorize': {
        const { expr: text, authority } = args;
        if (text != null && (typeof text !== 'string' || text.trim() === '')) {
          return problem('expr must be a non-empty string');
        }
        if (authority != null && (typeof authority !== 'string' || authority === '')) {
          return problem('authority must be a non-empty string');
        }
        if (text == null && authority == null) {
          return problem(
            'needs expr, authority or both, e.g. @preAuthorize(expr: "hasRole(\'USER\')")',
          );
        }
        let parsed: ExpressionNode | undefined;
        if (typeof text === 'string') {
          try {
            parsed = parseExpression(text, this.#expressionOptions());
          } catch (error) {
            const code =
              error instanceof ExpressionSyntaxError
                ? error.code
                : 'ERR_GRAPHQL_DIRECTIVE_ARGUMENT';
            this.#report(element, coordinate, name, code, messageOf(error));
            return BROKEN;
          }
        }
        const rights = typeof authority === 'string' ? expr.hasAuthority(authority) : undefined;
        if (parsed && rights) return expr.and(parsed, rights);
        return parsed ?? rights ?? null;
      }
    }
  }

  /** Compiles a rule (once per distinct text) and checks its `args.*` against the field. */
  #compile(
    declared: Declared,
    field: GraphQLField<unknown, unknown>,
    coordinate: string,
  ): CompiledExpression | typeof BROKEN {
    const node = declared.node as ExpressionNode;
    const key = JSON.stringify(node);
    const checkedKey = `${coordinate}\n${key}`;
    const checked = this.#checked.get(checkedKey);
    if (checked !== undefined) return checked;
    let compiled = this.#compiled.get(key);
    if (compiled === undefined) {
      try {
        compiled = compileExpression(node, this.#expressionOptions());
      } catch (error) {
        compiled = BROKEN;
        const code =
          error instanceof ExpressionSyntaxError ? error.code : 'ERR_GRAPHQL_DIRECTIVE_ARGUMENT';
        this.#report(field, coordinate, declared.directive, code, messageOf(error));
      }
      this.#compiled.set(key, compiled);
    }
    const result =
      compiled === BROKEN ? BROKEN : this.#checkArguments(compiled, declared, field, coordinate);
    this.#checked.set(checkedKey, result);
    return result;
  }

  /** Reports `args.*` references to arguments the field does not have. */
  #checkArguments(
    compiled: CompiledExpression,
    declared: Declared,
    field: GraphQLField<unknown, unknown>,
    coordinate: string,
  ): CompiledExpression | typeof BROKEN {
    if (compiled.pathVariables.length > 0) {
      // Only URL rules capture path variables; on a field `path.x` would always be missing.
      const refs = compiled.pathVariables.map((name) => `path.${name}`).join(', ');
      this.#report(
        field,
        coordinate,
        declared.directive,
        'ERR_GRAPHQL_UNKNOWN_ARGUMENT',
        `${refs}: a GraphQL field has no path variables (they come from URL rules' path patterns); use args`,
      );
      return BROKEN;
    }
    const known = new Set(field.args.map((a) => a.name));
    const missing = [...argumentNames(compiled.ast)].filter((name) => !known.has(name));
    if (missing.length === 0) return compiled;
    const list = field.args.length === 0 ? 'none' : field.args.map((a) => a.name).join(', ');
    const from = declared.origin.endsWith(` on ${coordinate}`) ? '' : `, from ${declared.origin}`;
    const refs = missing.map((m) => `args.${m}`).join(', ');
    const verb = missing.length === 1 ? 'is not an argument' : 'are not arguments';
    this.#report(
      field,
      coordinate,
      declared.directive,
      'ERR_GRAPHQL_UNKNOWN_ARGUMENT',
      `${refs} ${verb} of ${coordinate} (its arguments: ${list})${from}`,
    );
    return BROKEN;
  }

  #expressionOptions() {
    const { functions, events } = this.#options;
    return {
      ...(functions === undefined ? {} : { functions }),
      ...(events === undefined ? {} : { events }),
    };
  }

  /** Whether the schema's definition of a directive (if any) is portcullis's; reports when not. */
  #checkDefinition(name: SecurityDirectiveName): boolean {
    const definition = this.#schema.getDirective(name);
    // Undefined: code-first schemas may still carry it in `extensions.directives`.
    if (!definition) return true;
    const expected = DIRECTIVE_ARGUMENTS[name];
    const actual = Object.fromEntries(definition.args.map((a) => [a.name, String(a.type)]));
    const same =
      Object.keys(actual).length === Object.keys(expected).length &&
      Object.entries(expected).every(([arg, type]) => actual[arg] === type);
    if (same) return true;
    const wanted = Object.entries(expected)
      .map(([arg, type]) => `${arg}: ${type}`)
      .join(', ');
    this.#problems.push({
      coordinate: `@${name}`,
      directive: `@${name}`,
      code: 'ERR_GRAPHQL_DIRECTIVE_DEFINITION',
      message: `the schema defines @${name} with other arguments than portcullis's (${wanted || 'none'}); use securityDirectives().typeDefs`,
      location: locationOf(definition.astNode),
    });
    return false;
  }

  #report(
    element: Element,
    coordinate: string,
    name: string,
    code: SchemaSecurityProblemCode,
    message: string,
  ): void {
    this.#problems.push({
      coordinate,
      directive: name.startsWith('@') || name === 'defaultPolicy' ? name : `@${name}`,
      code,
      message,
      location: locationOf(directiveNode(element, name.replace(/^@/u, '')) ?? element.astNode),
    });
  }
}

/** Rules that must all pass, as one (identical rules once); `undefined` when none. */
function combine(...rules: readonly (Declared | undefined)[]): Declared | undefined {
  const distinct = new Map<string, Declared>();
  for (const rule of rules) {
    if (rule?.node) distinct.set(JSON.stringify(rule.node), rule);
  }
  const all = [...distinct.values()];
  if (all.length <= 1) return all[0];
  return {
    directive: all.map((d) => d.directive).join(' '),
    node: expr.and(...all.map((d) => d.node as ExpressionNode)),
    origin: all.map((d) => d.origin).join(' and '),
  };
}

/** A directive argument read as a list of non-empty strings (a single string is a list of one). */
function listOf(value: unknown): readonly string[] | undefined {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list)) return undefined;
  if (!list.every((v): v is string => typeof v === 'string' && v !== '')) return undefined;
  return [...new Set(list)];
}

/** The first segment of every `args.*` reference in a tree. */
function argumentNames(node: ExpressionNode): Set<string> {
  const names = new Set<string>();
  const visit = (n: unknown): void => {
    if (typeof n !== 'object' || n === null) return;
    const record = n as { type?: string; root?: string; path?: readonly string[] };
    if (record.type === 'reference' && record.root === 'args' && record.path?.[0] !== undefined) {
      names.add(record.path[0]);
      return;
    }
    for (const value of Object.values(n)) {
      if (Array.isArray(value)) value.forEach(visit);
      else visit(value);
    }
  };
  visit(node);
  return names;
}

function directiveNode(element: Element, name: string): DirectiveNode | undefined {
  const nodes = [
    element.astNode,
    ...(('extensionASTNodes' in element && element.extensionASTNodes) || []),
  ];
  for (const node of nodes) {
    const found = node?.directives?.find((d) => d.name.value === name);
    if (found) return found;
  }
  return undefined;
}

function locationOf(node: ASTNode | null | undefined): SchemaLocation | undefined {
  const loc = node?.loc;
  if (!loc) return undefined;
  const { line, column } = getLocation(loc.source, loc.start);
  return { source: loc.source.name, line, column };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
