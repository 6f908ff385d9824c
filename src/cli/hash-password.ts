import { parseArgs } from 'node:util';
import type { CliOutput } from './check-schema.js';
import { describe } from './config.js';

const USAGE = `Usage: portcullis hash-password [-h]

Reads a password and prints its hash as the delegating password encoder stores it
({argon2}$argon2id$...: createDelegatingPasswordEncoder() from portcullis/argon2,
whose matches() also reads it), for a seed script or a user row.

The password is read from standard input: piped (printf '%s' 'secret' | npx
portcullis hash-password; one trailing newline is dropped), or typed at a terminal,
without echo, twice. It is never taken as an argument, which other users of the
machine could read in the process list.

Exit status: 0 with the hash printed, 2 for a usage or input error.`;

/** The longest password read (bytes), so that a mistaken pipe does not fill memory. */
const MAX_BYTES = 4096;

/** Where the password comes from: `process.stdin` in the binary. @internal */
export interface PasswordInput extends NodeJS.ReadableStream {
  readonly isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** `portcullis hash-password`. Returns the exit status. @internal */
export async function main(
  argv: readonly string[],
  io: CliOutput,
  input: PasswordInput = process.stdin,
): Promise<number> {
  let help: boolean | undefined;
  try {
    ({
      values: { help },
    } = parseArgs({ args: [...argv], options: { help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    io.err(`${describe(error)}\n\n${USAGE}`);
    return 2;
  }
  if (help === true) {
    io.out(USAGE);
    return 0;
  }
  let password: string;
  try {
    password = input.isTTY === true ? await typed(input, io) : await piped(input);
  } catch (error) {
    io.err(describe(error));
    return 2;
  }
  if (password.length === 0) {
    io.err('No password was given on standard input.');
    return 2;
  }
  let encoder;
  try {
    const { createDelegatingPasswordEncoder } = await import('../argon2/index.js');
    encoder = createDelegatingPasswordEncoder();
  } catch (error) {
    io.err(
      `portcullis hash-password needs the package argon2 (npm install argon2): ${describe(error)}`,
    );
    return 2;
  }
  try {
    io.out(await encoder.encode(password));
    return 0;
  } catch (error) {
    // The encoder's errors carry a code and never the password.
    io.err(describe(error));
    return 2;
  }
}

/** All of a pipe, one trailing newline dropped. */
async function piped(input: PasswordInput): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > MAX_BYTES) throw new Error(`The password is longer than ${MAX_BYTES} bytes.`);
    chunks.push(bytes);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** A password typed at a terminal without echo, twice. */
async function typed(input: PasswordInput, io: CliOutput): Promise<string> {
  const first = await line(input, io, 'Password: ');
  const again = await line(input, io, 'Again: ');
  if (first !== again) throw new Error('The passwords do not match.');
  return first;
}

function line(input: PasswordInput, io: CliOutput, prompt: string): Promise<string> {
  process.stderr.write(prompt);
  input.setRawMode?.(true);
  input.resume();
  return new Promise((resolve, reject) => {
    const typed: string[] = [];
    let text = '';
    const done = (error?: Error): void => {
      input.removeListener('data', onData);
      input.setRawMode?.(false);
      input.pause();
      io.err('');
      if (error) reject(error);
      else resolve(text);
    };
    const onData = (chunk: Buffer | string): void => {
      for (const char of chunk.toString()) {
        if (char === '\r' || char === '\n' || char === '\u0004') {
          done();
          return;
        }
        if (char === '\u0003') {
          done(new Error('Cancelled.'));
          return;
        }
        // Backspace drops the last character typed (a code point).
        if (char === '\u007f' || char === '\b') typed.pop();
        else typed.push(char);
        text = typed.join('');
        if (Buffer.byteLength(text) > MAX_BYTES) {
          done(new Error(`The password is longer than ${MAX_BYTES} bytes.`));
          return;
        }
      }
    };
    input.on('data', onData);
  });
}
