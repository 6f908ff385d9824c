/** Helpers of the benchmark runner: server processes, load, statistics. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

/** Whether `taskset` can pin processes to a core here. */
export const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Pins this (load-generating) process to core 0 when `taskset` exists. */
export function pinSelf(): boolean {
  if (!hasTaskset) return false;
  execFileSync('taskset', ['-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  return true;
}

export interface ServerProcess {
  readonly origin: string;
  cpuMicros(): Promise<number>;
  /** Heap in use after a full garbage collection (bytes); the server must run with `--expose-gc`. */
  heapUsed(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts a benchmark server file in its own process, on core 1 when possible. */
export async function startServer(
  file: string,
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<ServerProcess> {
  const path = fileURLToPath(new URL(file, import.meta.url));
  // Compiled (npm run bench) the server is a .js file; under tsx it is the .ts source.
  const args =
    path.endsWith('.ts') || import.meta.url.endsWith('.ts')
      ? [...nodeArgs, '--import', 'tsx', path.replace(/\.js$/u, '.ts')]
      : [...nodeArgs, path];
  const options = {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'] as ('ignore' | 'inherit' | 'ipc')[],
    env: { ...process.env, ...env, NODE_ENV: 'production' },
  };
  const child: ChildProcess = hasTaskset
    ? spawn('taskset', ['-c', '1', process.execPath, ...args], options)
    : spawn(process.execPath, args, options);
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error(`${file} exited before listening`);
    }),
  ])) as [{ port: number }];
  const ask = async (question: 'cpu' | 'heap'): Promise<number> => {
    child.send(question);
    for (;;) {
      const [reply] = (await once(child, 'message')) as [Record<string, number | undefined>];
      const value = reply[question];
      if (value !== undefined) return value;
    }
  };
  return {
    origin: `http://127.0.0.1:${message.port}`,
    cpuMicros: () => ask('cpu'),
    heapUsed: () => ask('heap'),
    stop: async () => {
      const exited = once(child, 'exit');
      child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface LoadResult {
  readonly rps: number;
  readonly p99: number;
  readonly cpuPerRequestMicros: number;
  readonly non2xx: number;
  readonly errors: number;
}

/** Runs autocannon for `seconds` against a URL and measures the server's CPU per request. */
export async function load(
  server: ServerProcess,
  path: string,
  headers: Record<string, string>,
  seconds: number,
  connections = 16,
  request: { readonly method: 'GET' | 'POST'; readonly body?: string } = { method: 'GET' },
): Promise<LoadResult> {
  const before = await server.cpuMicros();
  const result = await autocannon({
    url: `${server.origin}${path}`,
    connections,
    duration: seconds,
    headers,
    method: request.method,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const after = await server.cpuMicros();
  const total = result.requests.total;
  return {
    rps: total / seconds,
    p99: result.latency.p99,
    cpuPerRequestMicros: total > 0 ? (after - before) / total : Number.NaN,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Time per call of `fn`, best of `rounds` rounds of `iterations` calls, in nanoseconds. */
export function timePerCall(fn: () => unknown, iterations: number, rounds = 7): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    const elapsed = Number(process.hrtime.bigint() - start) / iterations;
    if (elapsed < best) best = elapsed;
  }
  return best;
}

export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
