/**
 * The getting-started page's five-minute server does what the page says. Its first TypeScript
 * block, read as the snippet check reads it (docs/snippets.mjs), is written as `server.ts`
 * into .tmp/docs-getting-started/ and run there with `node --import tsx` on a free 127.0.0.1
 * port (the block reads `PORT`); then each `curl` line of the page is sent as written and
 * answered with the status, and the greeting or header, that its comment says.
 *
 * `portcullis` resolves as it does for a user: through the package's `exports`, from
 * .tmp/docs-getting-started/node_modules/portcullis/ (the checkout's package.json beside the
 * JavaScript that tsconfig.build.json emits from src/, built by this test). Not the checkout's
 * dist/: .ci/run runs the suite before `npm run build`, so dist/ is missing there, and may be
 * stale anywhere else; rebuilding it from a test (`rm -rf dist`) would pull it from under
 * whatever else reads it. The package's own dependencies (ipaddr.js, recheck) resolve from the
 * checkout's node_modules, the folders above. The folder's own tsconfig.json keeps tsx from
 * the checkout's, whose `paths` would map `portcullis` to src/.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, rawRequest } from '../support/server.js';

interface Snippet {
  readonly line: number;
  readonly code: string;
  readonly skip: boolean;
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const page = join(root, 'docs', 'getting-started.md');
const work = join(root, '.tmp', 'docs-getting-started');
const pkgDir = join(work, 'node_modules', 'portcullis');
/** The origin the page's curl lines call. */
const PAGE_ORIGIN = 'http://127.0.0.1:3000';

// Imported by URL, as a module without declarations (docs/ is not in the tsconfig).
const { snippets } = (await import(pathToFileURL(join(root, 'docs', 'snippets.mjs')).href)) as {
  snippets: (page: string) => Snippet[];
};

/** One `curl` line of the page: what it sends and what its comment says comes back. */
interface CurlLine {
  readonly text: string;
  readonly method: string;
  /** The request target, as written after the page's origin. */
  readonly target: string;
  readonly user: { readonly name: string; readonly password: string } | undefined;
  readonly status: number;
  /** The rest of the comment: `hello <name>`, a header, or prose. */
  readonly says: string;
}

/** The arguments of a shell line: words, single quotes removed. */
function words(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|(\S+)/gu)].map((m) => m[1] ?? m[2] ?? '');
}

/** The `curl` lines of the first ```sh block after the server's block. */
function curlLines(markdown: string, after: number): CurlLine[] {
  const lines = markdown.split(/\r?\n/u).slice(after);
  const start = lines.findIndex((line) => /^```sh\s*$/u.test(line));
  const end = lines.findIndex((line, i) => i > start && /^```\s*$/u.test(line));
  if (start < 0 || end < 0) throw new Error('no ```sh block follows the server');
  return lines
    .slice(start + 1, end)
    .filter((line) => line.startsWith('curl '))
    .map((text) => {
      const hash = text.search(/\s#\s/u);
      if (hash < 0) throw new Error(`a curl line says nothing of its answer: ${text}`);
      const args = words(text.slice(0, hash)).slice(1);
      const comment = /^(\d{3})\b[,:]?\s*(.*)$/u.exec(text.slice(hash).replace(/^\s#\s*/u, ''));
      if (!comment) throw new Error(`a curl line's comment does not start with a status: ${text}`);
      let method = 'GET';
      let user: CurlLine['user'];
      let url: string | undefined;
      for (let i = 0; i < args.length; i++) {
        const arg = args[i] ?? '';
        if (arg === '-X') method = args[++i] ?? '';
        else if (arg === '-u') {
          const [name = '', ...password] = (args[++i] ?? '').split(':');
          user = { name, password: password.join(':') };
        } else if (arg === '-i') continue;
        else if (arg.startsWith(PAGE_ORIGIN)) url = arg;
        else throw new Error(`an argument of a curl line the test does not know: ${arg}`);
      }
      if (url === undefined) throw new Error(`a curl line without ${PAGE_ORIGIN}: ${text}`);
      return {
        text,
        method,
        target: url.slice(PAGE_ORIGIN.length),
        user,
        status: Number(comment[1]),
        says: comment[2] ?? '',
      };
    });
}

const markdown = readFileSync(page, 'utf8');
const server = snippets(page)[0];
if (server === undefined) throw new Error('docs/getting-started.md has no TypeScript block');
const curls = curlLines(markdown, server.line);

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) =>
    probe.close(() => {
      resolve();
    }),
  );
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** node with `args` in the work folder, within `timeout` ms: its status and output. */
function runNode(args: string[], timeout: number): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, args, { cwd: work, encoding: 'utf8', timeout });
  return { status: run.status, output: `${run.stdout}${run.stderr}${run.error?.message ?? ''}` };
}

let child: ChildProcess | undefined;
const output: string[] = [];
let origin = '';

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(pkgDir, { recursive: true });
  writeFileSync(
    join(work, 'package.json'),
    JSON.stringify({ name: 'docs-getting-started', private: true, type: 'module' }),
  );
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'nodenext', strict: true } }),
  );
  copyFileSync(join(root, 'package.json'), join(pkgDir, 'package.json'));
  // The package's JavaScript, as `npm run build` emits it (without declarations and maps). tsc
  // emits even when src/ has a type error: that is the type check's to report.
  const build = runNode(
    [
      join(root, 'node_modules', 'typescript', 'lib', 'tsc.js'),
      '-p',
      join(root, 'tsconfig.build.json'),
      '--outDir',
      join(pkgDir, 'dist'),
      '--declaration',
      'false',
      '--declarationMap',
      'false',
      '--sourceMap',
      'false',
    ],
    110_000,
  );
  if (!existsSync(join(pkgDir, 'dist', 'node', 'index.js')))
    throw new Error(`tsc did not build the package:\n${build.output}`);
  // The page's program, as the page shows it.
  writeFileSync(join(work, 'server.ts'), `${server.code}\n`);
  // `portcullis` resolves to the package just built, even under tsx.
  const resolved = runNode(
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      "console.log(import.meta.resolve('portcullis/node'))",
    ],
    20_000,
  );
  expect(resolved.output.trim()).toBe(pathToFileURL(join(pkgDir, 'dist', 'node', 'index.js')).href);

  const port = await freePort();
  const started = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: work,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = started;
  started.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  started.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the page's server did not listen in 30 s:\n${output.join('')}`));
    }, 30_000);
    const read = (): void => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/u.exec(output.join(''));
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    started.stdout.on('data', read);
    started.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the page's server exited (${code ?? signal}):\n${output.join('')}`));
    });
  });
  expect(origin).toBe(`http://127.0.0.1:${port}`);
}, 150_000);

afterAll(async () => {
  const running = child;
  if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
  const exited = new Promise<void>((resolve) =>
    running.once('exit', () => {
      resolve();
    }),
  );
  running.kill('SIGTERM');
  const timer = setTimeout(() => running.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
});

describe("docs/getting-started.md's five-minute server", () => {
  it('the page asks as anonymous, alice and admin, and a path the firewall refuses', () => {
    expect(server.skip).toBe(false);
    const users = new Set(curls.map((c) => c.user?.name ?? 'anonymous'));
    expect([...users].sort()).toEqual(['admin', 'alice', 'anonymous']);
    expect(curls.some((c) => c.status === 400 && c.user === undefined)).toBe(true);
  });

  it.each(curls.map((c) => [c.text, c] as const))('%s', async (_text, curl) => {
    const answer = await rawRequest(
      origin,
      curl.method,
      curl.target,
      curl.user ? { authorization: basic(curl.user.name, curl.user.password) } : {},
    );
    const seen = `${answer.headers}\n\n${answer.body}\n(the server said: ${output.join('')})`;
    expect(answer.status, seen).toBe(curl.status);
    const header = /^([A-Za-z-]+): (.+)$/u.exec(curl.says);
    if (curl.says.startsWith('hello ')) {
      expect(answer.body.startsWith(`${curl.says}:`), answer.body).toBe(true);
    } else if (header?.[1] !== undefined) {
      const name = header[1].toLowerCase();
      // The page names the header and how its value starts (Basic realm="Restricted"; the
      // server adds charset="UTF-8").
      const line = answer.headers.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name}:`));
      expect(
        line
          ?.slice(name.length + 1)
          .trim()
          .startsWith(header[2] ?? ''),
        answer.headers,
      ).toBe(true);
    }
  });
});
