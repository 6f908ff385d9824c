/**
 * Before and after: the example server built from another commit (the baseline,
 * `--ref`, default the commit in `bench/baseline-ref`) beside this tree's, and the
 * example's routes with security off, in alternating rounds in one run. Each secured
 * server first proves its security (200 with the credential, 401 without and with a
 * wrong one) before every window. The figure is the server CPU per request over the
 * bare server: the pipeline's overhead, before and after.
 *
 * The baseline is built once per commit into `.bench-build/baseline-<commit>/`
 * (`git archive` of the sources, this tree's `node_modules`, `tsc`), so its
 * `portcullis` self-reference resolves to its own `dist/`.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expectStatus } from './http.js';
import { fmt, load, startServer, type LoadResult, type ServerProcess } from './lib.js';

const ROOT = resolve(import.meta.dirname, import.meta.url.endsWith('.ts') ? '..' : '../..');
const ARCHIVED = [
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.bench.json',
  'src',
  'examples',
  'bench',
  'types',
  'schema-directives',
];

/** The commit named by `ref` (or by `bench/baseline-ref`), built; returns its example server file. */
export function buildBaseline(ref: string | undefined): { commit: string; server: string } {
  const wanted =
    ref ??
    readFileSync(join(ROOT, 'bench/baseline-ref'), 'utf8')
      .split('\n')
      .find((line) => /^[0-9a-f]{7,40}\b/u.test(line))
      ?.split(/\s/u)[0];
  if (wanted === undefined) throw new Error('bench/baseline-ref names no commit');
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--short=12', `${wanted}^{commit}`);
  const dir = join(ROOT, '.bench-build', `baseline-${commit}`);
  const server = join(dir, '.bench-build/bench/servers/example.js');
  if (!existsSync(server)) {
    mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['archive', commit, ...ARCHIVED], {
      cwd: ROOT,
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    if (!existsSync(join(dir, 'node_modules'))) {
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    }
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    for (const project of ['tsconfig.build.json', 'tsconfig.bench.json']) {
      execFileSync(process.execPath, [tsc, '-p', project], { cwd: dir, stdio: 'inherit' });
    }
  }
  return { commit, server };
}

export interface BaselineRow {
  readonly route: string;
  readonly name: string;
  /** Server CPU µs per request over the bare server, one per round. */
  readonly overheads: readonly number[];
}

export interface BaselineResult {
  readonly commit: string;
  readonly rows: readonly BaselineRow[];
}

interface Target {
  readonly name: string;
  readonly server: ServerProcess;
  readonly secured: boolean;
}

/** Runs the before/after rounds. */
export async function benchBaseline(options: {
  seconds: number;
  rounds: number;
  warmup: number;
  ref: string | undefined;
}): Promise<BaselineResult> {
  const { commit, server: baselineFile } = buildBaseline(options.ref);
  const env = { JWT_SECRET: randomBytes(32).toString('base64url') };
  const targets: Target[] = [];
  try {
    targets.push({
      name: 'bare (security off)',
      server: await startServer('./servers/example.js', { ...env, MODE: 'bare' }),
      secured: false,
    });
    targets.push({
      name: `before (${commit})`,
      server: await startServer(pathToFileURL(baselineFile).href, { ...env, MODE: 'secure' }),
      secured: true,
    });
    targets.push({
      name: 'after (this tree)',
      server: await startServer('./servers/example.js', { ...env, MODE: 'secure' }),
      secured: true,
    });
    const token = await login(targets[2]!.server.origin);
    const routes = [
      {
        route: 'GET /profile, Basic (cached Argon2id)',
        path: '/profile',
        good: `Basic ${Buffer.from('user:user-password').toString('base64')}`,
        bad: `Basic ${Buffer.from('user:wrong').toString('base64')}`,
      },
      {
        route: 'GET /api/profile, Bearer JWT (cache on)',
        path: '/api/profile',
        good: `Bearer ${token}`,
        bad: `Bearer ${token.slice(0, -4)}AAAA`,
      },
    ];
    const rows: { route: string; name: string; overheads: number[] }[] = [];
    for (const { route, path, good, bad } of routes) {
      for (const target of targets) {
        await load(target.server, path, { authorization: good }, options.warmup);
      }
      const perRound = targets.map(() => [] as LoadResult[]);
      for (let round = 0; round < options.rounds; round++) {
        for (const [index, target] of targets.entries()) {
          if (target.secured) {
            const url = `${target.server.origin}${path}`;
            await expectStatus(url, { authorization: good }, 200);
            await expectStatus(url, {}, 401);
            await expectStatus(url, { authorization: bad }, 401);
          }
          const result = await load(target.server, path, { authorization: good }, options.seconds);
          if (result.non2xx > 0 || result.errors > 0) {
            throw new Error(
              `${target.name} ${route}: ${result.non2xx} non-2xx, ${result.errors} errors`,
            );
          }
          perRound[index]!.push(result);
        }
      }
      const bare = perRound[0]!;
      for (const [index, target] of targets.entries()) {
        if (!target.secured) continue;
        rows.push({
          route,
          name: target.name,
          overheads: perRound[index]!.map(
            (result, round) => result.cpuPerRequestMicros - bare[round]!.cpuPerRequestMicros,
          ),
        });
      }
    }
    return { commit, rows };
  } finally {
    await Promise.all(targets.map((target) => target.server.stop()));
  }
}

async function login(origin: string): Promise<string> {
  const response = await fetch(`${origin}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'user', password: 'user-password' }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (typeof body.access_token !== 'string') throw new Error('the example issued no token');
  return body.access_token;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[middle]!
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

export function printBaseline({ commit, rows }: BaselineResult): void {
  console.log(
    `\n## Pipeline overhead before and after (the example server at ${commit} and this tree)\n`,
  );
  console.log(
    'Server CPU µs per request over the bare server, measured in the same round for each; median and range over the rounds.\n',
  );
  console.log('| route | server | overhead µs/req (median) | range |');
  console.log('|---|---|---:|---|');
  for (const row of rows) {
    const low = Math.min(...row.overheads);
    const high = Math.max(...row.overheads);
    console.log(
      `| ${row.route} | ${row.name} | ${fmt(median(row.overheads), 1)} | ${fmt(low, 1)} – ${fmt(high, 1)} |`,
    );
  }
  const routes = [...new Set(rows.map((row) => row.route))];
  for (const route of routes) {
    const [before, after] = rows.filter((row) => row.route === route);
    if (!before || !after) continue;
    const deltas = after.overheads.map((value, round) => value - (before.overheads[round] ?? 0));
    const noise = Math.max(
      Math.max(...before.overheads) - Math.min(...before.overheads),
      Math.max(...after.overheads) - Math.min(...after.overheads),
    );
    const delta = median(deltas);
    console.log(
      `\n- ${route}: after − before = ${fmt(delta, 1)} µs/req (median of the rounds' differences), ` +
        `spread of either server over the rounds ${fmt(noise, 1)} µs: ` +
        `${Math.abs(delta) <= noise ? 'no change beyond noise' : delta > 0 ? 'a regression beyond noise' : 'faster beyond noise'}.`,
    );
  }
}
