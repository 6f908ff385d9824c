/**
 * The machinery of the in-process benchmarks (trpc-inprocess.ts, graphql-inprocess.ts):
 * one server of the benchmark per child process, called in process (no socket, no
 * load generator), on several Node versions side by side.
 *
 * Each row names the process that runs it (its `mode`: rows that must not share a
 * process, because one of them changes what the others cost, get a process each)
 * and its id there. For each Node version one child process per mode is started and
 * kept; the runner asks the children for one row at a time over IPC, so no two rows
 * ever run at once: `rounds` rounds, each row `calls` sequential calls per round, the
 * rows of every version in one order that rotates each round. Per row: the CPU and
 * wall-clock µs per call of every round, their median and interquartile range, and
 * the row over the baseline row (same version) as the spread of the per-round ratios.
 *
 * The child protocol: the child sends `{ ready, rows, version, storage }` once it has
 * proved its rows (or `{ error }` and exits); the runner sends `{ run, calls }`, the
 * child answers `{ row, cpu, wall }` (µs per call) or `{ error }`; `{ stop }` ends it.
 *
 * The Node versions: this one, and `npx -y -p node@<major> node` for the others
 * (resolved once to the binary's path).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { hasTaskset } from './lib.js';

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

/** The majors of `--node` (or `BENCH_NODE`), else the default ones. */
export function nodeMajors(option: string | undefined): string[] {
  return (option ?? process.env['BENCH_NODE'] ?? DEFAULT_NODE_VERSIONS.join(','))
    .split(',')
    .map((major) => major.trim())
    .filter((major) => major !== '');
}

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
  script: string,
  label: string,
  mode: string,
  env: Record<string, string>,
  execArgv: readonly string[],
): Promise<Child> {
  const path = fileURLToPath(new URL(`./servers/${script}`, import.meta.url));
  // Compiled (npm run bench) the child is a .js file; under tsx it is the .ts source.
  const args = import.meta.url.endsWith('.ts')
    ? [...execArgv, '--import', 'tsx', path.replace(/\.js$/u, '.ts')]
    : [...execArgv, path];
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
    exited = new Error(`${label} (Node ${runtime.major}, ${mode}) exited (${String(code)})`);
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
    // A child whose rows failed their check is not left behind.
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
  /** CPU per call over the baseline row's in the same round, over the rounds. */
  readonly ratio: Spread;
  /** CPU µs per call of each round, in round order (for ratios between other rows). */
  readonly rounds: readonly number[];
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
  /** The asks each round's calls of a row were split into, per process. */
  readonly slices: number;
  /** The processes of each mode per runtime. */
  readonly instances: number;
  readonly runtimes: InProcessRuntime[];
}

/** One row: its name, the process (mode) that runs it, its id in that process. */
export type InProcessRowSpec = readonly [name: string, mode: string, id: string];

export interface InProcessBench {
  /** The child's script, relative to bench/servers, as compiled (`trpc-inprocess.js`). */
  readonly script: string;
  /** What a child is called in errors. */
  readonly label: string;
  /** The rows; the processes start in the order their modes first appear. */
  readonly rows: readonly InProcessRowSpec[];
  /** The name of the row every ratio is to; the first row if not given. */
  readonly baseline?: string;
  /** The children's environment (`MODE` and `NODE_ENV=production` are added). */
  readonly env: Readonly<Record<string, string>>;
  /** Node options of the children. */
  readonly execArgv?: readonly string[];
}

/**
 * Runs the rows on each runtime, interleaved; every child is stopped before it
 * returns. A runtime's version and storage are those of its first process.
 */
export async function benchInProcess(
  bench: InProcessBench,
  options: {
    runtimes: readonly NodeRuntime[];
    rounds?: number;
    calls?: number;
    warmupCalls?: number;
    /**
     * Each round's calls of a row in this many asks, every row's slice s after the
     * others' slice s − 1 (the order rotating each slice): the rows of one round then
     * share the machine's state even when a round lasts seconds. 1 by default.
     */
    slices?: number;
    /**
     * Processes of each mode per runtime, the calls of a slice shared among them: a
     * process's own state (what its JIT made of the code) can move a row by more
     * than the difference measured, so a row is the mean of several. 1 by default.
     */
    instances?: number;
  },
): Promise<InProcessResult> {
  const { runtimes, rounds = 21, calls = 1500, warmupCalls = 3000 } = options;
  const { slices = 1, instances = 1 } = options;
  const share = slices * instances;
  if (!Number.isInteger(calls / share)) throw new Error(`${calls} calls in ${share} asks`);
  const modes = [...new Set(bench.rows.map(([, mode]) => mode))];
  const children: Child[] = [];
  try {
    const processes = new Map<string, Child>();
    for (const runtime of runtimes) {
      for (const mode of modes) {
        for (let instance = 0; instance < instances; instance++) {
          const child = await startChild(
            runtime,
            bench.script,
            bench.label,
            mode,
            { ...bench.env },
            bench.execArgv ?? [],
          );
          children.push(child);
          processes.set(`${runtime.major}/${mode}/${String(instance)}`, child);
        }
      }
    }
    const tasks = runtimes.flatMap((runtime) =>
      bench.rows.flatMap(([name, mode, id]) =>
        Array.from({ length: instances }, (_, instance) => ({
          major: runtime.major,
          name,
          id,
          child: processes.get(`${runtime.major}/${mode}/${String(instance)}`)!,
        })),
      ),
    );
    for (const task of tasks) await task.child.ask(task.id, warmupCalls);
    const cpu = new Map<string, number[]>();
    const wall = new Map<string, number[]>();
    const keyOf = (major: string, name: string) => `${major}\u0000${name}`;
    for (let round = 0; round < rounds; round++) {
      const sums = new Map<string, { cpu: number; wall: number }>();
      for (let slice = 0; slice < slices; slice++) {
        const start = (round * slices + slice) % tasks.length;
        for (const task of [...tasks.slice(start), ...tasks.slice(0, start)]) {
          const result = await task.child.ask(task.id, calls / share);
          const key = keyOf(task.major, task.name);
          const sum = sums.get(key) ?? sums.set(key, { cpu: 0, wall: 0 }).get(key)!;
          sum.cpu += result.cpu / share;
          sum.wall += result.wall / share;
        }
      }
      for (const [key, sum] of sums) {
        (cpu.get(key) ?? cpu.set(key, []).get(key)!).push(sum.cpu);
        (wall.get(key) ?? wall.set(key, []).get(key)!).push(sum.wall);
      }
    }
    const baseline = bench.baseline ?? bench.rows[0]![0];
    return {
      rounds,
      calls,
      slices,
      instances,
      runtimes: runtimes.map((runtime) => {
        const base = cpu.get(keyOf(runtime.major, baseline))!;
        const first = processes.get(`${runtime.major}/${modes[0]!}/0`)!;
        return {
          major: runtime.major,
          version: first.version,
          storage: first.storage,
          rows: bench.rows.map(([name]) => {
            const own = cpu.get(keyOf(runtime.major, name))!;
            return {
              name,
              cpu: spread(own),
              wall: spread(wall.get(keyOf(runtime.major, name))!),
              ratio: spread(own.map((value, i) => value / base[i]!)),
              rounds: own,
            };
          }),
        };
      }),
    };
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }
}
