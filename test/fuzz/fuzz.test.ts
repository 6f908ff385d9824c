import { describe, expect, it } from 'vitest';
import { runFuzz } from './fuzz.js';

// `npm run fuzz` in short: the example server with every mechanism on, fuzzed with
// seeded raw requests. Every answer must be a non-5xx response within the timeout,
// and a body may name a user only when the request carried that user's credential.
describe('fuzzing the example server (a short run of npm run fuzz)', () => {
  it('keeps every invariant for 20 seconds of seeded requests', async () => {
    const seed = Number(process.env['FUZZ_SEED'] ?? 20_261_126);
    // A generous timeout: the rest of the suite may share the machine.
    const report = await runFuzz({ seed, durationMs: 20_000, concurrency: 4, timeoutMs: 15_000 });
    const summary = report.violations
      .slice(0, 5)
      .map((v) => `[${v.invariant}] #${v.index} ${v.detail}\n  ${JSON.stringify(v.request)}`)
      .join('\n');
    expect(report.violationCount, `seed ${seed}\n${summary}\n${report.serverStderr}`).toBe(0);
    expect(report.serverDied).toBe(false);
    // The run did reach the server with every kind of request, and users got in.
    expect(report.requests).toBeGreaterThan(500);
    expect(Object.keys(report.kinds)).toHaveLength(9);
    expect(report.statusClasses['2xx'] ?? 0).toBeGreaterThan(50);
  }, 120_000);
});
