/**
 * First-match URL-rule lookup at 10, 100 and 1000 rules: portcullis'
 * RequestMatcherAuthorizer against a naive linear scan of the same anchored
 * regular expressions (what a hand-written rule table does), in one process, side
 * by side.
 */
import {
  Access,
  AuthenticatedUser,
  AuthorizationManager,
  User,
  createSecurityRequest,
  type SecurityRequest,
} from 'portcullis';
import { fmt, timePerCall } from './lib.js';

const SIZES = [10, 100, 1000] as const;

/** A mixed, realistic rule set: literal prefixes, parameters, alternations. */
function patterns(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    switch (i % 4) {
      case 0:
        return `/api/v1/resource${i}(?:/.*)?`;
      case 1:
        return `/admin/section${i}/[0-9]+`;
      case 2:
        return `/files/team${i}/(?:docs|images)/.*`;
      default:
        return `/app${i}/settings`;
    }
  });
}

/** A path that the `i`-th pattern matches. */
function samplePath(i: number): string {
  switch (i % 4) {
    case 0:
      return `/api/v1/resource${i}/items`;
    case 1:
      return `/admin/section${i}/42`;
    case 2:
      return `/files/team${i}/docs/a.txt`;
    default:
      return `/app${i}/settings`;
  }
}

const request = (path: string): SecurityRequest =>
  createSecurityRequest({ method: 'GET', url: path, header: () => undefined });

export interface RuleRow {
  readonly rules: number;
  readonly case: string;
  readonly portcullisNs: number;
  readonly naiveNs: number;
}

export function benchRules(): RuleRow[] {
  const user = AuthenticatedUser.from(new User('u', '').withRoles(['USER']));
  const rows: RuleRow[] = [];
  for (const size of SIZES) {
    const list = patterns(size);
    let matcher = AuthorizationManager.requestMatcher();
    for (const pattern of list) matcher = matcher.addMatcher(pattern, new Access().roles(['USER']));
    // The same flags portcullis compiles rules with by default (case-insensitive).
    const naive = list.map((p) => new RegExp(`^(?:${p})$`, 'siu'));
    const cases: [string, string][] = [
      ['first rule', samplePath(0)],
      ['middle rule', samplePath(Math.floor(size / 2))],
      ['last rule', samplePath(size - 1)],
      ['no rule (public)', '/public/index.html'],
    ];
    for (const [name, path] of cases) {
      const req = request(path);
      if (req.path !== path) throw new Error(`${path} is not in normal form`);
      const expected = naive.findIndex((re) => re.test(path));
      const iterations = Math.max(2_000, Math.floor(2_000_000 / size));
      const portcullisNs = timePerCall(() => matcher.authorize(user, req), iterations);
      const naiveNs = timePerCall(() => naive.findIndex((re) => re.test(req.path)), iterations);
      if (name !== 'no rule (public)' && expected === -1) throw new Error(`no rule for ${path}`);
      rows.push({ rules: size, case: name, portcullisNs, naiveNs });
    }
  }
  return rows;
}

export function printRules(rows: RuleRow[]): void {
  console.log('\n## URL rule lookup (first match), ns per request, best of 7 rounds\n');
  console.log('| rules | case | portcullis | naive linear scan | naive / portcullis |');
  console.log('|---:|---|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.rules} | ${row.case} | ${fmt(row.portcullisNs)} | ${fmt(row.naiveNs)} | ${fmt(row.naiveNs / row.portcullisNs, 1)}× |`,
    );
  }
  const size = Math.max(...rows.map((r) => r.rules));
  const largest = rows.filter((row) => row.rules === size);
  const sum = (of: 'naiveNs' | 'portcullisNs') =>
    largest.reduce((total, row) => total + row[of], 0);
  const speedup = sum('naiveNs') / sum('portcullisNs');
  const first = largest.find((row) => row.case === 'first rule');
  console.log(
    `\n- URL rules at ${String(size)} rules: portcullis ${fmt(speedup, 1)}× faster than the linear ` +
      `scan over the ${String(largest.length)} cases together, goal ≥ 20×: ` +
      (speedup >= 20 ? 'achieved' : 'not achieved') +
      (first
        ? ` (a match on the first rule alone, where the scan stops at once: ${fmt(first.naiveNs / first.portcullisNs, 1)}×).`
        : '.'),
  );
}
