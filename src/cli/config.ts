import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FirewallOptions } from '../authorization/firewall-options.js';
import type { Firewall } from '../authorization/firewall.js';
import type { Authorizer } from '../core/security.js';
import type { JwtConfig } from '../jwt/config.js';
import type { User } from '../core/user.js';
import type { UserRepository } from '../users/repository.js';

/** A user of {@link CliConfig.users} given as data (a password, if any, is ignored). */
export interface CliUser {
  readonly username: string;
  readonly roles?: Iterable<string>;
  readonly authorities?: Iterable<string>;
}

/**
 * What the configuration module of `npx portcullis explain --config` and
 * `npx portcullis token --config` exports: its default export (or its export named
 * `config`), an object or a function (possibly async) that returns one. Build it from the same code
 * as the server, so that the command explains the rules the server enforces.
 *
 * @example
 * ```ts
 * // security.ts
 * import { Access, AuthorizationManager, type CliConfig } from 'portcullis';
 * export const rules = AuthorizationManager.requestMatcher()
 *   .httpBasic()
 *   .requestMatchers('/admin/**', new Access().roles(['ADMIN']))
 *   .anyRequest(Access.authenticated());
 * export default { authorizer: rules, users: [{ username: 'alice', roles: ['ADMIN'] }] } satisfies CliConfig;
 * ```
 */
export interface CliConfig {
  /** The server's authorizer: it must have `explain` (the URL-rule authorizer has it). */
  readonly authorizer: Authorizer;
  /**
   * Where `--as <name>` finds the user: the server's `UserRepository` (its account
   * state counts: a locked account cannot log in), or users as data.
   * @defaultValue none: only anonymous requests can be explained
   */
  readonly users?: UserRepository | readonly CliUser[];
  /**
   * The server's firewall, as given to the transform.
   * @defaultValue `new Firewall()`, as the transform's default
   */
  readonly firewall?: Firewall | FirewallOptions | false;
  /** The server's JWT configuration, for `npx portcullis token --config`. */
  readonly jwt?: JwtConfig;
}

/** A command-line input problem: printed as it is, exit status 2. @internal */
export class CliError extends Error {
  override readonly name = 'CliError';
}

const TYPESCRIPT = /\.[cm]?tsx?$/u;

/**
 * Loads a configuration module. A TypeScript one goes through `tsx` when it is
 * installed (the way the examples run), else through Node's own type stripping.
 *
 * @internal
 */
export async function loadConfig(path: string): Promise<CliConfig> {
  const url = pathToFileURL(resolvePath(path)).href;
  let module: Record<string, unknown>;
  try {
    module = await importModule(url);
  } catch (error) {
    const hint =
      (error as { code?: unknown }).code === 'ERR_UNKNOWN_FILE_EXTENSION'
        ? ' (a TypeScript module needs the package tsx, or Node 22.18 or later; or compile it to .js)'
        : '';
    throw new CliError(`Cannot load --config ${path}: ${describe(error)}${hint}`, {
      cause: error,
    });
  }
  const exported = module['default'] ?? module['config'];
  const config: unknown =
    typeof exported === 'function' ? await (exported as () => unknown)() : exported;
  if (typeof config !== 'object' || config === null) {
    throw new CliError(
      `--config ${path}: the module must export (default, or as "config") an object { authorizer, users?, firewall?, jwt? } or a function that returns one`,
    );
  }
  return config as CliConfig;
}

async function importModule(url: string): Promise<Record<string, unknown>> {
  if (TYPESCRIPT.test(new URL(url).pathname)) {
    // tsx's loader, registered for the whole process (not its isolated tsImport): the
    // module must share this process's copy of portcullis, or its JwtConfig and User
    // would not be the command's. Without tsx, Node's type stripping may load it.
    try {
      const { register } = (await import('tsx/esm/api')) as { register: () => unknown };
      register();
    } catch {
      // No tsx.
    }
  }
  return (await import(url)) as Record<string, unknown>;
}

/** An error's message for the terminal (the code first when it has one). @internal */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
}

/**
 * The user `--as <username>` names in the configuration's users: a repository's
 * `User` (with its account state) or a {@link CliUser}.
 *
 * @internal
 */
export async function findConfigUser(
  users: CliConfig['users'],
  username: string,
): Promise<User | CliUser> {
  if (users === undefined) throw new CliError(`--as ${username}: the configuration has no users`);
  if (Array.isArray(users)) {
    const found = (users as readonly CliUser[]).find((user) => user.username === username);
    if (found === undefined) {
      throw new CliError(`--as ${username}: no such user in the configuration's users`);
    }
    return found;
  }
  const repository = users as Partial<UserRepository>;
  if (typeof repository.findByUsername !== 'function') {
    throw new CliError(
      'The configuration\'s "users" must be a UserRepository or an array of users',
    );
  }
  const found = await repository.findByUsername(username);
  if (found === null) throw new CliError(`--as ${username}: the user repository has no such user`);
  return found;
}
