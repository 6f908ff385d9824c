/**
 * `npm run fuzz -- [--seed N] [--duration S] [--requests N] [--concurrency N] [--timeout MS]`:
 * fuzzes the example server with seeded raw HTTP requests (see `fuzz.ts`), prints
 * the figures and every violation with its reproducer, and exits 1 on any violation.
 */
import { parseArgs } from 'node:util';
import { runFuzz, type FuzzReport } from './fuzz.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    duration: { type: 'string' },
    requests: { type: 'string' },
    concurrency: { type: 'string' },
    timeout: { type: 'string' },
    json: { type: 'boolean' },
  },
});

function count(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new TypeError(`--${name} must be a non-negative number`);
  return n;
}

const seed = count('seed', values.seed) ?? Math.floor(Math.random() * 2 ** 31);
const duration = count('duration', values.duration) ?? 30;
const requests = count('requests', values.requests);
const concurrency = count('concurrency', values.concurrency);
const timeout = count('timeout', values.timeout);

console.log(
  `fuzzing the example server: seed ${seed}, ${duration} s${requests === undefined ? '' : `, at most ${requests} requests`}`,
);
const report: FuzzReport = await runFuzz({
  seed,
  durationMs: duration * 1000,
  ...(requests === undefined ? {} : { requests }),
  ...(concurrency === undefined ? {} : { concurrency }),
  ...(timeout === undefined ? {} : { timeoutMs: timeout }),
  log: (line) => {
    console.log(line);
  },
});

if (values.json === true) {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log(
    `\nseed ${report.seed}: ${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s`,
  );
  console.log(`status classes: ${JSON.stringify(report.statusClasses)}`);
  console.log(`request kinds: ${JSON.stringify(report.kinds)}`);
  console.log(
    `violations: ${report.violationCount}${report.serverDied ? ' (the server died)' : ''}`,
  );
  for (const v of report.violations) {
    console.log(`\n[${v.invariant}] request #${v.index} (${v.kind}): ${v.detail}`);
    console.log(`  reproduce (--seed ${report.seed}; substitute the credentials):`);
    console.log(`  ${JSON.stringify(v.request)}`);
  }
  if (report.serverStderr !== '') console.log(`\nserver stderr:\n${report.serverStderr}`);
}
process.exitCode = report.violationCount > 0 ? 1 : 0;
