#!/usr/bin/env node
// The `portcullis` command: check-schema, explain, hash-password, token.

const USAGE = `Usage: portcullis <command> [options]

Commands:
  check-schema <schema.graphql>...     check the security directives of an SDL schema
  explain <METHOD> <PATH> --config <module> [--as <user>]
                                       which URL rule decides a request, and why
  hash-password                        hash a password read from standard input
  token --config <module> --as <user>  a development access token (JWT)

Run "portcullis <command> --help" for a command's options.`;

/** Each command's module, loaded on use: a missing peer fails only its command. */
const COMMANDS: Readonly<Record<string, () => Promise<{ main: Main }>>> = {
  'check-schema': () => import('./check-schema.js'),
  explain: () => import('./explain.js'),
  'hash-password': () => import('./hash-password.js'),
  token: () => import('./token.js'),
};

type Main = (argv: readonly string[], io: Output) => Promise<number>;

interface Output {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

const io: Output = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

const [command, ...rest] = process.argv.slice(2);
if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
  (command === undefined ? io.err : io.out)(USAGE);
  process.exitCode = command === undefined ? 2 : 0;
} else if (!Object.hasOwn(COMMANDS, command)) {
  io.err(`Unknown command "${command}".\n\n${USAGE}`);
  process.exitCode = 2;
} else {
  try {
    const { main } = await (COMMANDS[command] as () => Promise<{ main: Main }>)();
    // check-schema reads its own name first.
    process.exitCode = await main(command === 'check-schema' ? [command, ...rest] : rest, io);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const missing = (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND';
    io.err(
      missing && command === 'check-schema'
        ? `portcullis check-schema needs the packages graphql and @graphql-tools/utils: ${message}`
        : message,
    );
    process.exitCode = 2;
  }
}
