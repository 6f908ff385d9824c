/**
 * The GraphQL directives' cost against graphql-shield's where it can be read: the
 * benchmark query (100 fields, 10 protected) in process, through graphql-http's
 * Fetch handler with a bearer token (no socket, no load generator), on several Node
 * versions side by side, by inprocess.ts's method (interleaved rounds, one row at a
 * time, the order rotating each round).
 *
 * The directives fill `SecurityContext` (AsyncLocalStorage) around each protected
 * field's resolver; on Node 20 and 22 its promise hooks, once on, slow every promise
 * of the process. So the portcullis row runs in a process of its own (`context`),
 * whose tax counts in its cost, and the rows it is compared with in one where
 * `SecurityContext` never runs (`clean`); the same authentication and graphql-shield
 * rows again in the `context` process show the tax apart.
 *
 * The goal: portcullis's authorization over the same authentication against
 * graphql-shield's, (b − a′) / (c − a′) ≤ 1/3, decided on the ratio of the medians of
 * the per-round differences, med_r(b_r − a′_r) / med_r(c_r − a′_r): each difference is
 * a few per cent of a query, so one round's ratio swings with one round's noise in its
 * denominator, while the medians of the differences hold from run to run. The median
 * of the per-round ratios, with its IQR and range, is shown beside it.
 */
import { randomBytes } from 'node:crypto';
import { User } from 'portcullis';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import {
  benchInProcess,
  spread,
  type InProcessResult,
  type InProcessRuntime,
  type NodeRuntime,
  type Spread,
} from './inprocess.js';
import { FIELDS, PROTECTED } from './graphql-schema.js';
import { fmt } from './lib.js';

const BARE = '(a) no security, no authentication';
const AUTH = "(a′) bare schema + portcullis's JWT context (authentication only)";
const PORTCULLIS = '(b) portcullis directives, same JWT context (its own process)';
const LEAN = '(b″) portcullis directives, securityContext: false, same JWT context';
const SHIELD = "(c) graphql-shield 'contextual', same JWT context";
const BARE_TAXED = '(a) again, in the process where SecurityContext has run';
const AUTH_TAXED = '(a′) again, in that process';
const LEAN_TAXED = '(b″) again, in that process';
const SHIELD_TAXED = '(c) again, in that process';

/** The rows: name, the process that runs it, its id there. The first is the baseline. */
export const GRAPHQL_IN_PROCESS_ROWS: readonly (readonly [
  name: string,
  mode: 'clean' | 'context',
  id: string,
])[] = [
  [BARE, 'clean', 'bare'],
  [AUTH, 'clean', 'bare-auth'],
  [PORTCULLIS, 'context', 'portcullis'],
  [LEAN, 'clean', 'portcullis-lean'],
  [SHIELD, 'clean', 'shield'],
  [BARE_TAXED, 'context', 'bare'],
  [AUTH_TAXED, 'context', 'bare-auth'],
  [LEAN_TAXED, 'context', 'portcullis-lean'],
  [SHIELD_TAXED, 'context', 'shield'],
];

/** Runs the GraphQL rows on each runtime, interleaved; every child is stopped before it returns. */
export async function benchGraphqlInProcess(options: {
  runtimes: readonly NodeRuntime[];
  rounds?: number;
  calls?: number;
  warmupCalls?: number;
  slices?: number;
  instances?: number;
}): Promise<InProcessResult> {
  // A query costs some 25 times a tRPC call: 600 a row keep two Node versions near 3
  // minutes; in slices, so that the rows of a round run within a second of each other
  // (the difference of two rows is a few per cent of either), over 2 processes of
  // each mode.
  const { runtimes, rounds = 21, calls = 600, warmupCalls = 1500 } = options;
  const { slices = 5, instances = 2 } = options;
  const secret = randomBytes(32).toString('base64url');
  const user = new User('alice', '').withRoles(['USER']).withAuthorities(['posts:read']);
  const env = {
    JWT_SECRET: secret,
    TOKEN: await new JwtAuthenticator(new JwtConfig(secret)).generateToken(user),
    FORGED: await new JwtAuthenticator(new JwtConfig(randomBytes(32))).generateToken(user),
  };
  return benchInProcess(
    {
      script: 'graphql-inprocess.js',
      label: 'GraphQL bench child',
      rows: GRAPHQL_IN_PROCESS_ROWS,
      env,
      // The young generation at one size (16 MiB semi-spaces) from the start: left to
      // V8's heuristics, its size in a process (how often it is scavenged) moved a row
      // by 40-90 µs from one process to the next, more than the difference measured;
      // fixed, three processes of one Node agreed within 10-20 µs.
      execArgv: ['--min-semi-space-size=16', '--max-semi-space-size=16'],
    },
    { runtimes, rounds, calls, warmupCalls, slices, instances },
  );
}

interface Overhead {
  /** med_r(ours_r − base_r) / med_r(theirs_r − base_r): what decides. */
  readonly ratio: number;
  /** The medians of the per-round differences, µs. */
  readonly ours: number;
  readonly theirs: number;
  /** The per-round ratios (ours_r − base_r) / (theirs_r − base_r). */
  readonly rounds: Spread;
}

function overhead(runtime: InProcessRuntime, ours: string, theirs: string, base: string): Overhead {
  const rounds = (name: string) => runtime.rows.find((row) => row.name === name)!.rounds;
  const [o, t, b] = [rounds(ours), rounds(theirs), rounds(base)];
  const oursOver = spread(o.map((value, i) => value - b[i]!)).median;
  const theirsOver = spread(t.map((value, i) => value - b[i]!)).median;
  return {
    ratio: oursOver / theirsOver,
    ours: oursOver,
    theirs: theirsOver,
    rounds: spread(o.map((value, i) => (value - b[i]!) / (t[i]! - b[i]!))),
  };
}

const percent = (ratio: number) => `${ratio >= 1 ? '+' : ''}${fmt((ratio - 1) * 100, 1)}%`;
const r3 = (value: number) => fmt(value, 3);
const third = 1 / 3;
const described = (ratios: Spread) =>
  `median ${r3(ratios.median)} (IQR ${r3(ratios.p25)}–${r3(ratios.p75)}, ` +
  `range ${r3(ratios.min)}–${r3(ratios.max)})`;

/** One runtime's table per Node version, and its goal line. */
export function printGraphqlInProcess(result: InProcessResult): void {
  console.log(
    `\n## GraphQL in process (graphql-http's Fetch handler, no socket), bearer token (HS256), ` +
      `per Node version\n\n` +
      `One query of ${FIELDS} fields, ${PROTECTED.length} protected, POSTed as JSON in a new ` +
      `\`Request\` per query, the \`Response\` body read; ${String(result.rounds)} interleaved ` +
      `rounds of ${fmt(result.calls)} sequential queries per row (in ${String(result.slices)} ` +
      `slices, the rows taking turns, in each of ${String(result.instances)} processes of ` +
      `each kind, which the row's figure averages; young generation fixed at 16 MiB); CPU µs per query, median and ` +
      `interquartile range; "vs (a)" is the median of the per-round ratios to (a) of the same ` +
      `Node, with their IQR. The directives run each protected field's resolver in ` +
      `\`SecurityContext\` (AsyncLocalStorage): (b) runs in a second process, whose tax (on ` +
      `Node 20 and 22 AsyncLocalStorage's promise hooks, once on, slow every promise of the ` +
      `process) counts in (b)'s cost; the last four rows, the other rows again in that process (both ` +
      `kinds of process run the same rows, so that graphql-js's code is warmed alike), show ` +
      `the tax.`,
  );
  for (const runtime of result.runtimes) {
    console.log(`\n### Node ${runtime.version} (AsyncLocalStorage on ${runtime.storage})\n`);
    console.log('| variant | CPU µs/query | IQR | vs (a) | IQR of ratios |');
    console.log('|---|---:|---:|---:|---:|');
    for (const { name, cpu, ratio } of runtime.rows) {
      console.log(
        `| ${name} | ${fmt(cpu.median, 1)} | ${fmt(cpu.p25, 1)}–${fmt(cpu.p75, 1)} | ` +
          `${name === BARE ? '–' : percent(ratio.median)} | ` +
          `${name === BARE ? '–' : `${percent(ratio.p25)} … ${percent(ratio.p75)}`} |`,
      );
    }
  }
  for (const runtime of result.runtimes) {
    const line = (label: string, o: Overhead) =>
      `${label}: ${r3(o.ratio)} (${fmt(o.ours, 1)} µs against ${fmt(o.theirs, 1)} µs, ` +
      `medians of the per-round differences; per-round ratios ${described(o.rounds)})`;
    const verdict = (o: Overhead) => (o.ratio <= third ? 'achieved' : 'not achieved');
    const byDefault = overhead(runtime, PORTCULLIS, SHIELD, AUTH);
    const lean = overhead(runtime, LEAN, SHIELD, AUTH);
    const whole = overhead(runtime, PORTCULLIS, SHIELD, BARE);
    const taxFree = overhead(runtime, PORTCULLIS, SHIELD_TAXED, AUTH_TAXED);
    const median = (name: string) => runtime.rows.find((row) => row.name === name)!.cpu.median;
    console.log(
      `\n- GraphQL in process on Node ${runtime.version}, authorization over the same ` +
        `authentication, (b − a′) / (c − a′), goal ≤ 1/3: ` +
        `${line('by default', byDefault)}: ${verdict(byDefault)}; ` +
        `${line('with `securityContext: false`', lean)}: ${verdict(lean)}. ` +
        `The whole set-up, authentication included, (b − a) / (c − a): ` +
        `${r3(whole.ratio)}, ${whole.ratio <= third ? 'within' : 'over'} 1/3.`,
    );
    console.log(
      `- Node ${runtime.version}, the directives' own work against graphql-shield's (both ` +
        `in the process where SecurityContext has run, which taxes every row): ` +
        `${r3(taxFree.ratio)}; \`SecurityContext.run\` itself, (b) over (b″) there, ` +
        `${fmt(median(PORTCULLIS) - median(LEAN_TAXED), 1)} µs; the tax on (a′) ` +
        `${fmt(median(AUTH_TAXED) - median(AUTH), 1)} µs, ` +
        `on (c) ${fmt(median(SHIELD_TAXED) - median(SHIELD), 1)} µs.`,
    );
  }
}
