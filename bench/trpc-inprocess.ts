/**
 * The tRPC guard's cost where it can be read: in process, through tRPC's Fetch
 * adapter (no socket, no load generator), on several Node versions side by side.
 *
 * For each Node version two child processes (servers/trpc-inprocess.ts) are started
 * and kept: a `clean` one, where `SecurityContext` (AsyncLocalStorage) never runs,
 * for the bare procedure, the do-nothing and hand-written middlewares, portcullis's
 * context unguarded and `secured('USER')` with `securityContext: false`; and a
 * `context` one for `secured('USER')` with `securityContext: true` (and the bare
 * procedure again, to show what AsyncLocalStorage costs every promise of a process
 * once it has run: on Node 20 and 22 its promise hooks stay on). The runner asks the
 * children for one row at a time, so no two rows ever run at once: `rounds` rounds,
 * each row `calls` sequential calls per round, the rows of every version in one
 * order that rotates each round. Reported: the median CPU µs per call and its
 * interquartile range, and the row over the bare procedure (the `clean` process's,
 * same version) as the median of the per-round ratios, with their IQR.
 *
 * The Node versions: this one, and `npx -y -p node@<major> node` for the others
 * (resolved once to the binary's path); `--node 20,22,24` (or `BENCH_NODE`) picks them.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { User } from 'portcullis';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { fmt } from './lib.js';

type Mode = 'clean' | 'context';

/** The rows: name, the process that runs it, its id there. The first is the baseline. */
export const IN_PROCESS_ROWS: readonly (readonly [name: string, mode: Mode, id: string])[] = [
  ['bare: unguarded query', 'clean', 'bare-plain'],
  ['bare: do-nothing middleware', 'clean', 'bare-noop'],
  ['bare: hand-written jose + role middleware', 'clean', 'bare-handwritten'],
  ['portcullis context, unguarded query', 'clean', 'portcullis-plain'],
  ["portcullis context + secured('USER'), securityContext: false", 'clean', 'portcullis-lean'],
  ["portcullis context + secured('USER'), securityContext: true", 'context', 'portcullis-context'],
  ['bare: unguarded query, in a process where SecurityContext has run', 'context', 'bare-plain'],
  [
    "portcullis context + secured('USER'), securityContext: false, in that process",
    'context',
    'portcullis-lean',
  ],
];

export const DEFAULT_NODE_VERSIONS = ['20', '22', '24'] as const;

export interface NodeRuntime {
  /** The major version asked for. */
  readonly major: string;
  readonly execPath: string;
}

/** The Node binaries of the majors asked for: this process's, else the `node` npm package's. */
export function resolveRuntimes(majors: readonly string[]): NodeRuntime[] {
  const own = process.versions.node.split('.')[0]!;
  return majors.map((major) => {
    if (!/^\d+$/u.test(major)) throw new Error(`--node: ${major} is not a major version`);
    if (major === own) return { major, execPath: process.execPath };
    const execPath = execFileSync(
      'npx',
      ['-y', '-p', `node@${major}`, 'node', '-p', 'process.execPath'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    ).trim();
    return { major, execPath };
  });
}

const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

interface Reply {
  readonly ready?: boolean;
  readonly rows?: string[];
  readonly version?: string;
  readonly storage?: string;
  readonly error?: string;
  readonly row?: string;
  readonly cpu?: number;
  readonly wall?: number;
}

interface Child {
  readonly version: string;
  /** What AsyncLocalStorage runs on there. */
  readonly storage: string;
  ask(row: string, calls: number): Promise<{ cpu: number; wall: number }>;
  stop(): Promise<void>;
}

async function startChild(
  runtime: NodeRuntime,
  mode: Mode,
  env: Record<string, string>,
): Promise<Child> {
  const path = fileURLToPath(new URL('./servers/trpc-inprocess.js', import.meta.url));
  // Compiled (npm run bench) the child is a .js file; under tsx it is the .ts source.
  const args = import.meta.url.endsWith('.ts')
    ? ['--import', 'tsx', path.replace(/\.js$/u, '.ts')]
    : [path];
  const options = {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'] as ('ignore' | 'inherit' | 'ipc')[],
    env: { ...process.env, ...env, MODE: mode, NODE_ENV: 'production' },
  };
  // On core 1, as the HTTP benchmarks' servers (the runner is pinned to core 0).
  const child: ChildProcess = hasTaskset
    ? spawn('taskset', ['-c', '1', runtime.execPath, ...args], options)
    : spawn(runtime.execPath, args, options);
  // One listener for each event, whatever the number of questions: each reply settles
  // the one question in flight.
  let waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | undefined;
  let exited: Error | undefined;
  child.on('message', (reply: Reply) => {
    const question = waiting;
    waiting = undefined;
    if (reply.error !== undefined)
      question?.reject(new Error(`Node ${runtime.major}: ${reply.error}`));
    else question?.resolve(reply);
  });
  child.on('exit', (code) => {
    exited = new Error(
      `tRPC bench child (Node ${runtime.major}, ${mode}) exited (${String(code)})`,
    );
    waiting?.reject(exited);
    waiting = undefined;
  });
  const next = (): Promise<Reply> =>
    exited
      ? Promise.reject(exited)
      : new Promise((resolve, reject) => {
          waiting = { resolve, reject };
        });
  let ready: Reply;
  try {
    ready = await next();
  } catch (error) {
    // A child whose guards failed their check is not left behind.
    child.kill();
    throw error;
  }
  return {
    version: ready.version ?? '?',
    storage: ready.storage ?? '?',
    ask: async (row: string, calls: number) => {
      const reply = next();
      child.send({ run: row, calls });
      const { cpu, wall } = await reply;
      return { cpu: cpu!, wall: wall! };
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.send({ stop: true });
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  } satisfies Child;
}

export interface Spread {
  readonly median: number;
  readonly p25: number;
  readonly p75: number;
  readonly min: number;
  readonly max: number;
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => {
    const i = (sorted.length - 1) * q;
    const lo = Math.floor(i);
    const hi = Math.ceil(i);
    return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (i - lo);
  };
  return {
    median: at(0.5),
    p25: at(0.25),
    p75: at(0.75),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
  };
}

export interface InProcessRow {
  readonly name: string;
  /** CPU µs per call, over the rounds. */
  readonly cpu: Spread;
  /** Wall-clock µs per call, over the rounds. */
  readonly wall: Spread;
  /** CPU per call over the bare procedure's in the same round, over the rounds. */
  readonly ratio: Spread;
}

export interface InProcessRuntime {
  readonly major: string;
  readonly version: string;
  readonly storage: string;
  readonly rows: InProcessRow[];
}

export interface InProcessResult {
  readonly rounds: number;
  readonly calls: number;
  readonly runtimes: InProcessRuntime[];
}

/** Runs the in-process rows on each runtime, interleaved; every child is stopped before it returns. */
export async function benchTrpcInProcess(options: {
  runtimes: readonly NodeRuntime[];
  rounds?: number;
  calls?: number;
  warmupCalls?: number;
}): Promise<InProcessResult> {
  const { runtimes, rounds = 21, calls = 1500, warmupCalls = 3000 } = options;
  const secret = randomBytes(32).toString('base64url');
  const jwt = new JwtAuthenticator(new JwtConfig(secret));
  const env = {
    JWT_SECRET: secret,
    TOKEN: await jwt.generateToken(new User('user', '', ['USER'], [])),
    NO_ROLE: await jwt.generateToken(new User('guest', '', ['GUEST'], [])),
    FORGED: await new JwtAuthenticator(new JwtConfig(randomBytes(32))).generateToken(
      new User('user', '', ['USER'], []),
    ),
  };
  const children: Child[] = [];
  try {
    const processes = new Map<string, Child>();
    for (const runtime of runtimes) {
      for (const mode of ['clean', 'context'] as const) {
        const child = await startChild(runtime, mode, env);
        children.push(child);
        processes.set(`${runtime.major}/${mode}`, child);
      }
    }
    const tasks = runtimes.flatMap((runtime) =>
      IN_PROCESS_ROWS.map(([name, mode, id]) => ({
        major: runtime.major,
        name,
        id,
        child: processes.get(`${runtime.major}/${mode}`)!,
      })),
    );
    for (const task of tasks) await task.child.ask(task.id, warmupCalls);
    const cpu = new Map<string, number[]>();
    const wall = new Map<string, number[]>();
    const keyOf = (major: string, name: string) => `${major}\u0000${name}`;
    for (let round = 0; round < rounds; round++) {
      const start = round % tasks.length;
      for (const task of [...tasks.slice(start), ...tasks.slice(0, start)]) {
        const result = await task.child.ask(task.id, calls);
        const key = keyOf(task.major, task.name);
        (cpu.get(key) ?? cpu.set(key, []).get(key)!).push(result.cpu);
        (wall.get(key) ?? wall.set(key, []).get(key)!).push(result.wall);
      }
    }
    const baseline = IN_PROCESS_ROWS[0]![0];
    return {
      rounds,
      calls,
      runtimes: runtimes.map((runtime) => {
        const bare = cpu.get(keyOf(runtime.major, baseline))!;
        return {
          major: runtime.major,
          version: processes.get(`${runtime.major}/clean`)!.version,
          storage: processes.get(`${runtime.major}/clean`)!.storage,
          rows: IN_PROCESS_ROWS.map(([name]) => {
            const own = cpu.get(keyOf(runtime.major, name))!;
            return {
              name,
              cpu: spread(own),
              wall: spread(wall.get(keyOf(runtime.major, name))!),
              ratio: spread(own.map((value, i) => value / bare[i]!)),
            };
          }),
        };
      }),
    };
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }
}

const percent = (ratio: number) => `${ratio >= 1 ? '+' : ''}${fmt((ratio - 1) * 100, 1)}%`;

/** The rows of one runtime's table and its lines on the guard's cost. */
export function printTrpcInProcess(result: InProcessResult): void {
  console.log(
    `\n## tRPC query in process (Fetch adapter, no socket), bearer token (HS256), per Node version\n\n` +
      `${String(result.rounds)} interleaved rounds of ${fmt(result.calls)} sequential calls per row; ` +
      `CPU µs per call, median and interquartile range; "vs bare" is the median of the per-round ` +
      `ratios to the bare unguarded query of the same Node, with their IQR. ` +
      `\`securityContext: true\` runs in a second process: on Node 20 and 22 AsyncLocalStorage's ` +
      `promise hooks, once on, slow every promise of the process (the last two rows, the ` +
      `process's own bare query and \`securityContext: false\` guard, show it).`,
  );
  for (const runtime of result.runtimes) {
    console.log(`\n### Node ${runtime.version} (AsyncLocalStorage on ${runtime.storage})\n`);
    console.log('| procedure | CPU µs/call | IQR | vs bare | IQR of ratios |');
    console.log('|---|---:|---:|---:|---:|');
    for (const { name, cpu, ratio } of runtime.rows) {
      console.log(
        `| ${name} | ${fmt(cpu.median, 1)} | ${fmt(cpu.p25, 1)}–${fmt(cpu.p75, 1)} | ` +
          `${percent(ratio.median)} | ${percent(ratio.p25)} … ${percent(ratio.p75)} |`,
      );
    }
  }
  for (const runtime of result.runtimes) {
    const row = (prefix: string) => runtime.rows.find((r) => r.name.startsWith(prefix))!;
    const lean = row("portcullis context + secured('USER'), securityContext: false");
    const full = row("portcullis context + secured('USER'), securityContext: true");
    const bare = row('bare: unguarded query').cpu.median;
    const taxed = row('bare: unguarded query, in a process').cpu.median;
    const leanThere = row("portcullis context + secured('USER'), securityContext: false, in").cpu
      .median;
    const line =
      `the tRPC guard in process on Node ${runtime.version} (context authentication + ` +
      `\`secured('USER')\`) over the bare procedure: with \`securityContext: false\` ` +
      `${percent(lean.ratio.median)} (IQR ${percent(lean.ratio.p25)} … ${percent(lean.ratio.p75)}, ` +
      `${fmt(lean.cpu.median - bare, 1)} µs), with \`securityContext: true\` ` +
      `${percent(full.ratio.median)} (${fmt(full.cpu.median - bare, 1)} µs: the guard's ` +
      `\`SecurityContext.run\` ${fmt(full.cpu.median - leanThere, 1)} µs over \`false\` in the same ` +
      `process, and AsyncLocalStorage's tax on every promise of that process ` +
      `${fmt(taxed - bare, 1)} µs on the bare query); tRPC's own floor, a do-nothing ` +
      `middleware, ${percent(row('bare: do-nothing').ratio.median)}`;
    // The goal is set on Node 24 (AsyncContextFrame); the other versions are shown beside it.
    console.log(
      runtime.major === '24'
        ? `\n- Goal under 5% for ${line}: ${lean.ratio.median < 1.05 ? 'achieved' : 'not achieved'}.`
        : `\n- For comparison, ${line}.`,
    );
  }
}
