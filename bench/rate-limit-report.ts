/**
 * The rate-limit benchmark's section of the report (bench/rate-limit.ts measures):
 * one table of every row, median and range over the rounds, and the ratios
 * portcullis / rate-limiter-flexible.
 */
import { fmt } from './lib.js';
import {
  IN_FLIGHT,
  KEYS,
  MIN_ROUNDS,
  ROUNDS,
  median,
  type RateLimitRow,
  type Ratio,
} from './rate-limit-measure.js';

/** What `benchRateLimit` measured: every row, and the run's conditions. */
export interface RateLimitResult {
  readonly rows: readonly RateLimitRow[];
  readonly redisPinned: boolean;
  /** µs inside redis-server per script call (INFO commandstats over the Redis part). */
  readonly scriptMicros: { readonly portcullis: number; readonly flexible: number };
  /** How long the part ran. */
  readonly seconds: number;
}

const micros = (nanos: number): string => fmt(nanos / 1000, nanos < 10_000 ? 3 : 2);
const range = (values: readonly number[], show: (n: number) => string): string =>
  `${show(Math.min(...values))} – ${show(Math.max(...values))}`;

function ratioText(ratio: Ratio): string {
  const value = fmt(ratio.median, 2);
  if (ratio.overFloor !== undefined) {
    const { portcullis, flexible } = ratio.overFloor;
    return `${value} (${micros(portcullis)} / ${micros(flexible)} µs over the floor)`;
  }
  return `${value} (${fmt(ratio.min ?? ratio.median, 2)} – ${fmt(ratio.max ?? ratio.median, 2)})`;
}

/** Prints the section: its method, the table, the script times in Redis and the ratios by user. */
export function printRateLimit({
  rows,
  redisPinned,
  scriptMicros,
  seconds,
}: RateLimitResult): void {
  console.log('\n## Rate limits: portcullis `rateLimit` against rate-limiter-flexible\n');
  console.log(
    `What counting one request against a limit costs, in this process: portcullis' \`RateLimit.consume\` ` +
      `(the core of a \`rateLimit({ window: '1m', max, by })\` rule, without URL matching) and rate-limiter-flexible's ` +
      `\`consume(key)\`, on memory (\`MemoryThrottleStore\` / \`RateLimiterMemory\`) and on one \`redis-server\` ` +
      `(\`createRedisStores(…).throttle\` / \`RateLimiterRedis\` with \`useRedisPackage: true\`, the same node-redis client; ` +
      `the server ${redisPinned ? 'pinned to the other core' : 'not pinned'}). ` +
      `Requests rotate over ${fmt(KEYS)} users (or client addresses). The limits refuse nothing, except on the "half refused" rows: ` +
      `a fresh limiter each round lets exactly half of each key's requests through, which every round checks on both libraries. ` +
      `Up to ${String(ROUNDS)} interleaved rounds after a warm-up (at least ${String(MIN_ROUNDS)}; fewer when the machine is slow), ` +
      `µs per request (elapsed / requests; with ${String(IN_FLIGHT)} in flight, the inverse of the throughput), median and range; ` +
      `portcullis / rate-limiter-flexible is the median (and range) of the rounds' ratios, lower is faster. ` +
      `On memory portcullis answers synchronously and rate-limiter-flexible a promise, which its rows await ` +
      `(the portcullis row marked awaited does too). ` +
      `The URL-rule rows run the whole \`SecurityTransform.handle\` of a request authenticated as one of the users: ` +
      `without a limit (the floor), with \`requestMatcher().rateLimit('/api/**', limit)\` (first checked to answer 429 past its limit), ` +
      `and without it followed by rate-limiter-flexible's \`consume(username)\`, the middleware one writes after authentication; ` +
      `their ratio is of each one's cost over that floor (the median of the rounds' differences).\n`,
  );
  console.log(
    '| store, mode | limiter | µs/request (median) | range | portcullis / rate-limiter-flexible |',
  );
  console.log('|---|---|---:|---|---:|');
  for (const row of rows) {
    const label =
      row.library === 'rate-limiter-flexible' ? `rate-limiter-flexible ${row.label}` : row.label;
    const ratio = row.ratio === undefined ? '' : ratioText(row.ratio);
    console.log(
      `| ${row.group} | ${label} | ${micros(median(row.nanos))} | ${range(row.nanos, micros)} | ${ratio} |`,
    );
  }
  console.log(
    `\nInside redis-server (\`INFO commandstats\` over the Redis rows): portcullis' script (EVALSHA) ${fmt(scriptMicros.portcullis, 2)} µs per call, ` +
      `rate-limiter-flexible's (EVAL, the script sent each time) ${fmt(scriptMicros.flexible, 2)} µs per call.`,
  );
  const summary = rows
    .filter(
      (row) =>
        row.ratio !== undefined &&
        (row.ratio.overFloor !== undefined || row.label === "portcullis `consume`, by 'user'"),
    )
    .map((row) => `${row.group.replace(/ \(\d+ rounds\)$/u, '')}: ${fmt(row.ratio!.median, 2)}`);
  console.log(
    `\nportcullis / rate-limiter-flexible, by user, nothing refused: ${summary.join('; ')}. This part ran in ${fmt(seconds, 0)} s.`,
  );
}
