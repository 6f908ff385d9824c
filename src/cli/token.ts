import { parseArgs } from 'node:util';
import { User, accountRefusal } from '../core/user.js';
import type { CliOutput } from './check-schema.js';
import { CliError, describe, findConfigUser, loadConfig, type CliConfig } from './config.js';

const USAGE = `Usage: portcullis token --config <module> --as <username> [--expires <seconds>]
       portcullis token --subject <name> [--role <r>]... [--authority <a>]...
                        [--secret-env <NAME>] [--issuer <iss>] [--audience <aud>]
                        [--expires <seconds>]

Prints a development access token (a JWT: sub, roles, authorities, typ at+jwt),
signed as the server signs its own, for curl or an API client:

  --config <module>   the configuration module of "portcullis explain" with a
                      "jwt" (the server's JwtConfig); --as names one of its users
  --subject <name>    without --config: the token's user, with --role and
                      --authority (repeatable), signed with the HMAC secret in the
                      environment variable --secret-env (default JWT_SECRET), and
                      --issuer / --audience as the server checks them
  --expires <seconds> the token's lifetime (default: the configuration's)
  -h, --help          show this help

Refused with NODE_ENV=production: a token minted on the command line authenticated
nobody. The secret is read from the environment, never from an argument.

Exit status: 0 with the token printed, 2 for a usage or configuration error.`;

/** `portcullis token`. Returns the exit status. @internal */
export async function main(
  argv: readonly string[],
  io: CliOutput,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        as: { type: 'string' },
        subject: { type: 'string' },
        role: { type: 'string', multiple: true },
        authority: { type: 'string', multiple: true },
        'secret-env': { type: 'string' },
        issuer: { type: 'string' },
        audience: { type: 'string' },
        expires: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.err(`${describe(error)}\n\n${USAGE}`);
    return 2;
  }
  const { values } = parsed;
  if (values.help === true) {
    io.out(USAGE);
    return 0;
  }
  try {
    io.out(await mint(values, env));
    return 0;
  } catch (error) {
    io.err(error instanceof CliError ? error.message : describe(error));
    return 2;
  }
}

interface TokenArguments {
  readonly config?: string | undefined;
  readonly as?: string | undefined;
  readonly subject?: string | undefined;
  readonly role?: string[] | undefined;
  readonly authority?: string[] | undefined;
  readonly 'secret-env'?: string | undefined;
  readonly issuer?: string | undefined;
  readonly audience?: string | undefined;
  readonly expires?: string | undefined;
}

async function mint(
  args: TokenArguments,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  if (env['NODE_ENV'] === 'production') {
    throw new CliError(
      'portcullis token refuses to run with NODE_ENV=production: its tokens authenticate nobody.',
    );
  }
  const expiresInSeconds = args.expires === undefined ? undefined : seconds(args.expires);
  const { testJwt } = await import('../testing/jwt.js');
  const options = expiresInSeconds === undefined ? {} : { expiresInSeconds };
  if (args.config !== undefined) {
    const misplaced = (
      ['subject', 'role', 'authority', 'secret-env', 'issuer', 'audience'] as const
    ).find((name) => args[name] !== undefined);
    if (misplaced !== undefined) {
      throw new CliError(
        `--${misplaced} does not go with --config: the configuration's jwt and users say it`,
      );
    }
    if (args.as === undefined) throw new CliError('--config needs --as <username>');
    const config = await loadConfig(args.config);
    const { JwtConfig } = await import('../jwt/config.js');
    if (!(config.jwt instanceof JwtConfig)) {
      throw new CliError(
        `--config ${args.config}: the configuration has no "jwt" (the server's JwtConfig)`,
      );
    }
    const user = await userOf(config.users, args.as);
    return (await testJwt(config.jwt)).tokenFor(user, options);
  }
  if (args.as !== undefined)
    throw new CliError('--as goes with --config; without it, use --subject');
  if (args.subject === undefined)
    throw new CliError(`--subject or --config is needed.\n\n${USAGE}`);
  const name = args['secret-env'] ?? 'JWT_SECRET';
  const secret = env[name];
  if (secret === undefined || secret === '') {
    throw new CliError(
      `The environment variable ${name} is not set: it must hold the server's HMAC secret, so that the server accepts the token.`,
    );
  }
  const jwt = await testJwt({
    secret,
    ...(args.issuer === undefined ? {} : { issuer: args.issuer }),
    ...(args.audience === undefined ? {} : { audience: args.audience }),
  });
  const user = new User(args.subject, '', args.role ?? [], args.authority ?? []);
  return jwt.tokenFor(user, options);
}

function seconds(text: string): number {
  if (!/^[1-9][0-9]{0,7}$/u.test(text)) {
    throw new CliError(`--expires ${text}: expected a whole number of seconds (1 to 99999999)`);
  }
  return Number(text);
}

async function userOf(users: CliConfig['users'], username: string): Promise<User> {
  const found = await findConfigUser(users, username);
  if (!(found instanceof User)) {
    return new User(found.username, '', found.roles ?? [], found.authorities ?? []);
  }
  const refusal = accountRefusal(found, { credentials: false });
  if (refusal !== undefined) {
    throw new CliError(`--as ${username}: the account cannot log in (${refusal})`);
  }
  return found;
}
