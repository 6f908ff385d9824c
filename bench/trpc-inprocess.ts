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
 * The processes, rounds and spreads are inprocess.ts's, shared with graphql-inprocess.ts.
 */
import { randomBytes } from 'node:crypto';
import { User } from 'portcullis';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { benchInProcess, spread, type InProcessResult, type NodeRuntime } from './inprocess.js';
import { fmt } from './lib.js';

export {
  DEFAULT_NODE_VERSIONS,
  resolveRuntimes,
  spread,
  type InProcessResult,
  type InProcessRow,
  type InProcessRuntime,
  type NodeRuntime,
  type Spread,
} from './inprocess.js';

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
  return benchInProcess(
    { script: 'trpc-inprocess.js', label: 'tRPC bench child', rows: IN_PROCESS_ROWS, env },
    { runtimes, rounds, calls, warmupCalls },
  );
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
    // What portcullis adds beyond tRPC's own price of a middleware, per round, in the
    // bare procedure's terms: the part of the guard's cost portcullis can act on.
    const noop = row('bare: do-nothing').rounds;
    const bareRounds = row('bare: unguarded query').rounds;
    const own = spread(lean.rounds.map((value, i) => (value - noop[i]!) / bareRounds[i]!));
    const share = (value: number) => `${value >= 0 ? '+' : ''}${fmt(value * 100, 1)}%`;
    console.log(
      `- portcullis's own share on Node ${runtime.version}: the guard with \`securityContext: ` +
        `false\`, context authentication included, over tRPC's do-nothing middleware, per ` +
        `round in the bare procedure's terms: ${share(own.median)} (IQR ${share(own.p25)} … ` +
        `${share(own.p75)}, ${fmt(lean.cpu.median - row('bare: do-nothing').cpu.median, 1)} µs)` +
        (runtime.major === '24' ? `; under 5%: ${own.median < 0.05 ? 'yes' : 'no'}.` : '.'),
    );
  }
}
