import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  buildASTSchema,
  concatAST,
  GraphQLError,
  Kind,
  parse,
  Source,
  type DocumentNode,
} from 'graphql';
import type { ExpressionFunctions } from '../expression/index.js';
import { DEFAULT_POLICIES, type DefaultPolicy } from '../authorization/default-policy.js';
import { analyzeSchema } from '../graphql/analyze.js';
import { DIRECTIVE_NAMES, securityDirectivesTypeDefs } from '../graphql/directives.js';
import { formatProblem } from '../graphql/errors.js';
import { resolveSettings } from '../graphql/options.js';
import { rateLimitDirectiveTypeDefs } from '../graphql/rate-limits.js';

/** Where the command writes; `process.stdout` / `process.stderr` in the binary. */
export interface CliOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

const USAGE = `Usage: portcullis check-schema [options] <schema.graphql>...

Checks the security directives of an SDL schema (the files are read together, as
one schema) the way securityDirectives().transformer does at start-up: every
expression compiled, every problem reported with its file, line and coordinate.

Options:
  --default-policy <permitAll|authenticated|denyAll>
                      the policy of fields without a directive (default authenticated)
  --functions <module>
                      a module exporting the custom expression functions
                      (named export "functions", or the default export)
  --assume-valid-sdl  skip GraphQL's own SDL validation (e.g. for Federation
                      subgraphs whose @link/@key definitions are not in the files)
  --list              print every protected field with its effective rule
  -h, --help          show this help

Exit status: 0 when the schema is fine, 1 when it has problems, 2 for a usage
or input error.`;

interface Arguments {
  readonly files: string[];
  defaultPolicy: DefaultPolicy;
  functions: string | undefined;
  assumeValidSDL: boolean;
  list: boolean;
}

/**
 * `portcullis check-schema`: the build-time twin of the transformer's start-up
 * check, for SDL-first projects. Returns the exit status.
 *
 * @internal
 */
export async function main(argv: readonly string[], io: CliOutput): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '-h' || command === '--help' || command === 'help') {
    io.out(USAGE);
    return 0;
  }
  if (command !== 'check-schema') {
    io.err(command === undefined ? USAGE : `Unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }
  const args = parseArguments(rest, io);
  if (typeof args === 'number') return args;
  let document: DocumentNode;
  try {
    document = await readDocuments(args.files);
  } catch (error) {
    io.err(describe(error));
    return 2;
  }
  let functions: ExpressionFunctions | undefined;
  if (args.functions !== undefined) {
    try {
      functions = await loadFunctions(args.functions);
    } catch (error) {
      io.err(`Cannot load --functions ${args.functions}: ${describe(error)}`);
      return 2;
    }
  }
  let schema;
  try {
    schema = buildASTSchema(withDirectives(document), {
      assumeValidSDL: args.assumeValidSDL,
    });
  } catch (error) {
    io.err(`The schema is not valid GraphQL:\n${describe(error)}`);
    return 1;
  }
  let settings;
  try {
    settings = resolveSettings({
      defaultPolicy: args.defaultPolicy,
      ...(functions === undefined ? {} : { functions }),
    });
  } catch (error) {
    io.err(describe(error));
    return 2;
  }
  const { rules, problems } = analyzeSchema(schema, settings);
  if (problems.length > 0) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    io.err(`${count} with the security directives:\n${problems.map(formatProblem).join('\n')}`);
    return 1;
  }
  let protectedFields = 0;
  const lines: string[] = [];
  for (const fields of rules.values()) {
    for (const rule of fields.values()) {
      protectedFields += 1;
      lines.push(`  ${rule.coordinate}  ${rule.expression.source}  (${rule.origin})`);
    }
  }
  if (args.list && lines.length > 0) io.out(lines.join('\n'));
  io.out(
    `ok: ${protectedFields} protected field${protectedFields === 1 ? '' : 's'}, default policy ${args.defaultPolicy}`,
  );
  return 0;
}

function parseArguments(argv: readonly string[], io: CliOutput): Arguments | number {
  const args: Arguments = {
    files: [],
    defaultPolicy: 'authenticated',
    functions: undefined,
    assumeValidSDL: false,
    list: false,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const value = (): string | undefined => {
      const next = argv[i + 1];
      i += 1;
      return next;
    };
    if (arg === '-h' || arg === '--help') {
      io.out(USAGE);
      return 0;
    } else if (arg === '--default-policy') {
      const given = value();
      const policy = DEFAULT_POLICIES.find((p) => p === given);
      if (policy === undefined) {
        io.err('--default-policy must be permitAll, authenticated or denyAll');
        return 2;
      }
      args.defaultPolicy = policy;
    } else if (arg === '--functions') {
      const module = value();
      if (module === undefined) {
        io.err('--functions needs a module path');
        return 2;
      }
      args.functions = module;
    } else if (arg === '--assume-valid-sdl') {
      args.assumeValidSDL = true;
    } else if (arg === '--list') {
      args.list = true;
    } else if (arg.startsWith('-') && arg !== '-') {
      io.err(`Unknown option "${arg}".\n\n${USAGE}`);
      return 2;
    } else {
      args.files.push(arg);
    }
  }
  if (args.files.length === 0) {
    io.err(`No schema file given.\n\n${USAGE}`);
    return 2;
  }
  return args;
}

/** Parses each file as its own source (so locations name the file), then joins them. */
async function readDocuments(files: readonly string[]): Promise<DocumentNode> {
  const documents: DocumentNode[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new Error(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, {
        cause: error,
      });
    }
    documents.push(parse(new Source(text, file)));
  }
  return concatAST(documents);
}

/**
 * Adds portcullis's directive definitions when the files define none of them, and
 * `@rateLimit`'s when they do not define it (its limits live in code: the names are
 * not checked here).
 */
function withDirectives(document: DocumentNode): DocumentNode {
  const names = new Set<string>(DIRECTIVE_NAMES);
  const defined = (test: (name: string) => boolean) =>
    document.definitions.some((d) => d.kind === Kind.DIRECTIVE_DEFINITION && test(d.name.value));
  const added: DocumentNode[] = [];
  if (!defined((name) => names.has(name))) {
    added.push(parse(new Source(securityDirectivesTypeDefs, 'portcullis')));
  }
  if (!defined((name) => name === 'rateLimit')) {
    added.push(parse(new Source(rateLimitDirectiveTypeDefs, 'portcullis')));
  }
  return added.length === 0 ? document : concatAST([...added, document]);
}

async function loadFunctions(module: string): Promise<ExpressionFunctions> {
  const url = pathToFileURL(resolvePath(module)).href;
  const loaded = (await import(url)) as { functions?: unknown; default?: unknown };
  const functions = loaded.functions ?? loaded.default;
  if (typeof functions !== 'object' || functions === null) {
    throw new Error('the module exports no "functions" object (named or default)');
  }
  return functions as ExpressionFunctions;
}

function describe(error: unknown): string {
  if (error instanceof GraphQLError) return error.toString();
  return error instanceof Error ? error.message : String(error);
}
