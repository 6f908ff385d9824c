/**
 * `npx portcullis hash-password` (a delegating Argon2id hash of a password read from
 * standard input, never from an argument) and `npx portcullis token` (a development
 * token the example server accepts, refused under NODE_ENV=production).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createDelegatingPasswordEncoder } from 'portcullis/argon2';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { createSecurityRequest } from 'portcullis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as hashPassword, type PasswordInput } from '../../src/cli/hash-password.js';
import { main as token } from '../../src/cli/token.js';
import { startExample } from '../support/example-server.js';
import type { TestServer } from '../support/server.js';

const bin = join(import.meta.dirname, '../../src/cli/bin.ts');
const exampleConfig = join(import.meta.dirname, '../../examples/security.ts');
const SECRET = 'a-development-secret-of-at-least-32-bytes';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { out: (text: string) => out.push(text), err: (text: string) => err.push(text) },
  };
}

/** Runs the binary with `input` on its standard input. */
function runBin(
  args: readonly string[],
  input: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', bin, ...args],
      { encoding: 'utf8', timeout: 60_000, env },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(input);
  });
}

/** A terminal stand-in: `isTTY`, raw mode recorded, keys fed in order. */
function terminal(keys: readonly string[]): PasswordInput & { rawModes: boolean[] } {
  const stream = new PassThrough() as unknown as PasswordInput & {
    rawModes: boolean[];
    isTTY: boolean;
  };
  stream.isTTY = true;
  stream.rawModes = [];
  stream.setRawMode = (mode: boolean) => stream.rawModes.push(mode);
  let next = 0;
  // Each prompt resumes the stream: feed the next line then.
  const resume = stream.resume.bind(stream);
  stream.resume = () => {
    const key = keys[next++];
    if (key !== undefined) setImmediate(() => (stream as unknown as PassThrough).write(key));
    return resume();
  };
  return stream;
}

describe('portcullis hash-password', () => {
  const encoder = createDelegatingPasswordEncoder();

  it('hashes a piped password, dropping one trailing newline; the binary reads standard input', async () => {
    const result = await runBin(['hash-password'], 'correct horse\n');
    expect(result.code).toBe(0);
    const hash = result.stdout.trim();
    expect(hash).toMatch(/^\{argon2\}\$argon2id\$/u);
    expect(await encoder.matches('correct horse', hash)).toBe(true);
    expect(await encoder.matches('correct horse\n', hash)).toBe(false);
    expect(result.stdout + result.stderr).not.toContain('correct horse');
  });

  it('refuses an empty input and a password passed as an argument', async () => {
    const empty = await runBin(['hash-password'], '');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('No password');
    const argument = await runBin(['hash-password', 'secret'], '');
    expect(argument.code).toBe(2);
    expect(argument.stderr).toContain('ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL');
    expect(argument.stdout).toBe('');
  });

  it('refuses a password over 4096 bytes', async () => {
    const input = new PassThrough();
    input.end('x'.repeat(5000));
    const { io: output, err } = io();
    expect(await hashPassword([], output, input)).toBe(2);
    expect(err.join('')).toContain('longer than 4096 bytes');
  });

  it('reads a typed password twice without echo, with backspace', async () => {
    const input = terminal(['secret!\u007f\r', 'secret\r']);
    const { io: output, out } = io();
    expect(await hashPassword([], output, input)).toBe(0);
    expect(await encoder.matches('secret', out[0] ?? '')).toBe(true);
    expect(input.rawModes).toEqual([true, false, true, false]);
  });

  it('refuses two typed passwords that differ, and a Ctrl-C', async () => {
    const { io: output, err, out } = io();
    expect(await hashPassword([], output, terminal(['one\r', 'two\r']))).toBe(2);
    expect(err.join('\n')).toContain('do not match');
    expect(await hashPassword([], output, terminal(['abc\u0003']))).toBe(2);
    expect(err.join('\n')).toContain('Cancelled');
    expect(out).toEqual([]);
  });
});

describe('portcullis token', () => {
  let server: TestServer;
  const previous = process.env['JWT_SECRET'];
  beforeAll(async () => {
    // The example server signs and checks tokens with JWT_SECRET, as the command does.
    process.env['JWT_SECRET'] = SECRET;
    server = await startExample();
  });
  afterAll(async () => {
    await server.close();
    if (previous === undefined) delete process.env['JWT_SECRET'];
    else process.env['JWT_SECRET'] = previous;
  });

  async function status(path: string, bearer: string): Promise<number> {
    const response = await fetch(`${server.origin}${path}`, {
      headers: { authorization: `Bearer ${bearer}` },
    });
    await response.arrayBuffer();
    return response.status;
  }

  // The binary, as a user runs it: the configuration module and the command share one
  // copy of portcullis (in this test process, Vitest's copy and tsx's would differ).
  it("mints, from the example's configuration, a token the running server accepts as that user", async () => {
    const env = { ...process.env, JWT_SECRET: SECRET };
    const admin = await runBin(['token', '--config', exampleConfig, '--as', 'admin'], '', env);
    expect(admin.code).toBe(0);
    const user = await runBin(['token', '--config', exampleConfig, '--as', 'user'], '', env);
    expect(user.code).toBe(0);
    expect(await status('/admin/dashboard', admin.stdout.trim())).toBe(200);
    expect(await status('/admin/dashboard', user.stdout.trim())).toBe(403);
    expect(await status('/profile', user.stdout.trim())).toBe(200);
    expect(admin.stdout + admin.stderr).not.toContain(SECRET);
  });

  it('refuses, from a configuration, an unknown user and a configuration without jwt', async () => {
    const unknown = await runBin(['token', '--config', exampleConfig, '--as', 'nobody'], '', {
      ...process.env,
      JWT_SECRET: SECRET,
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--as nobody: no such user');
    const env = { ...process.env };
    delete env['JWT_SECRET'];
    const nojwt = await runBin(['token', '--config', exampleConfig, '--as', 'user'], '', env);
    expect(nojwt.code).toBe(2);
    expect(nojwt.stderr).toContain('has no "jwt"');
  });

  it('mints with --subject, --role, --authority and the secret from the environment', async () => {
    const { io: output, out } = io();
    const env = { JWT_SECRET: SECRET };
    const argv = ['--subject', 'carol', '--role', 'USER', '--authority', 'posts:read'];
    expect(await token([...argv, '--issuer', 'portcullis-example'], output, env)).toBe(0);
    expect(await status('/posts', out[0] ?? '')).toBe(200);
    // The server checks its issuer: a token without it is refused.
    const other = io();
    expect(await token(argv, other.io, env)).toBe(0);
    expect(await status('/posts', other.out[0] ?? '')).toBe(401);
  });

  it('sets the lifetime with --expires', async () => {
    const { io: output, out } = io();
    expect(
      await token(['--subject', 'dan', '--expires', '60'], output, { JWT_SECRET: SECRET }),
    ).toBe(0);
    const authenticator = new JwtAuthenticator(new JwtConfig(SECRET));
    const request = createSecurityRequest({
      method: 'GET',
      url: '/',
      header: (name) => (name === 'authorization' ? `Bearer ${out[0] ?? ''}` : undefined),
    });
    const user = await authenticator.authenticate(request);
    expect(user?.username).toBe('dan');
    const [, payload = ''] = (out[0] ?? '').split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      iat: number;
      exp: number;
    };
    expect(claims.exp - claims.iat).toBe(60);
  });

  it('refuses NODE_ENV=production, a missing secret, and bad arguments (exit 2)', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--subject', 'x'], { JWT_SECRET: SECRET, NODE_ENV: 'production' }, /NODE_ENV=production/u],
      [['--subject', 'x'], {}, /JWT_SECRET is not set/u],
      [['--subject', 'x', '--secret-env', 'MY_KEY'], { JWT_SECRET: SECRET }, /MY_KEY is not set/u],
      [['--subject', 'x', '--expires', '0'], { JWT_SECRET: SECRET }, /whole number of seconds/u],
      [['--config', exampleConfig], { JWT_SECRET: SECRET }, /--config needs --as/u],
      [
        ['--config', exampleConfig, '--as', 'user', '--role', 'ADMIN'],
        {},
        /does not go with --config/u,
      ],
      [['--as', 'user'], {}, /--as goes with --config/u],
      [[], {}, /--subject or --config is needed/u],
    ];
    for (const [argv, env, message] of cases) {
      const { io: output, err, out } = io();
      expect(await token(argv, output, env), argv.join(' ')).toBe(2);
      expect(err.join('\n'), argv.join(' ')).toMatch(message);
      expect(out).toEqual([]);
      expect(err.join('\n')).not.toContain(SECRET);
    }
  });
});
