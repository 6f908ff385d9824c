/**
 * The compiled security expression against a hand-written closure doing the same
 * set lookups, side by side in one process; and whether evaluation allocates
 * (garbage collections observed during a long loop).
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { AuthenticatedUser, User, compileExpression } from 'portcullis';
import { fmt, timePerCall } from './lib.js';

const user = AuthenticatedUser.from(
  new User('alice', '')
    .withRoles(['USER', 'EDITOR'])
    .withAuthorities(['posts:read', 'posts:write', 'comments:read']),
);

interface Case {
  readonly name: string;
  readonly text: string;
  readonly hand: (u: AuthenticatedUser | null) => boolean;
}

const CASES: Case[] = [
  {
    name: "hasRole('USER') and hasAuthority('posts:read')",
    text: "hasRole('USER') and hasAuthority('posts:read')",
    hand: (u) => u !== null && u.roles.has('USER') && u.authorities.has('posts:read'),
  },
  {
    name: '10 terms (and/or/not, any-of)',
    text:
      "(hasRole('ADMIN') or hasRole('EDITOR') or hasAnyRole('OWNER', 'MAINTAINER')) and " +
      "hasAuthority('posts:read') and not hasAuthority('posts:banned') and " +
      "(hasAuthority('posts:write') or hasAnyAuthority('posts:admin', 'site:admin')) and " +
      "isAuthenticated() and not hasRole('SUSPENDED') and hasAnyAuthority('comments:read', 'comments:write')",
    hand: (u) =>
      u !== null &&
      (u.roles.has('ADMIN') ||
        u.roles.has('EDITOR') ||
        u.roles.has('OWNER') ||
        u.roles.has('MAINTAINER')) &&
      u.authorities.has('posts:read') &&
      !u.authorities.has('posts:banned') &&
      (u.authorities.has('posts:write') ||
        u.authorities.has('posts:admin') ||
        u.authorities.has('site:admin')) &&
      !u.roles.has('SUSPENDED') &&
      (u.authorities.has('comments:read') || u.authorities.has('comments:write')),
  },
];

export interface ExpressionRow {
  readonly name: string;
  readonly compiledNs: number;
  readonly handNs: number;
  readonly gcDuringLoop: number;
}

/** Counts garbage collections while `fn` runs `iterations` times. */
async function collections(fn: () => unknown, iterations: number): Promise<number> {
  let count = 0;
  const observer = new PerformanceObserver((list) => {
    count += list.getEntries().length;
  });
  observer.observe({ entryTypes: ['gc'] });
  for (let i = 0; i < iterations; i++) fn();
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return count;
}

export async function benchExpressions(): Promise<ExpressionRow[]> {
  const rows: ExpressionRow[] = [];
  for (const c of CASES) {
    const compiled = compileExpression(c.text);
    if (compiled.evaluate(user) !== c.hand(user) || compiled.evaluate(null) !== c.hand(null)) {
      throw new Error(`${c.name}: compiled and hand-written disagree`);
    }
    const iterations = 2_000_000;
    const compiledNs = timePerCall(() => compiled.evaluate(user), iterations);
    const handNs = timePerCall(() => c.hand(user), iterations);
    const gcDuringLoop = await collections(() => compiled.evaluate(user), 20_000_000);
    rows.push({ name: c.name, compiledNs, handNs, gcDuringLoop });
  }
  return rows;
}

export function printExpressions(rows: ExpressionRow[]): void {
  console.log('\n## Security expression evaluation, ns per check, best of 7 rounds\n');
  console.log('| expression | compiled | hand-written closure | ratio | GCs in 20M evaluations |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.name} | ${fmt(row.compiledNs, 1)} | ${fmt(row.handNs, 1)} | ${fmt(row.compiledNs / row.handNs, 2)}× | ${row.gcDuringLoop} |`,
    );
  }
}
