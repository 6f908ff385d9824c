/**
 * First-match URL-rule lookup at 10, 100 and 1000 rules: portcullis'
 * RequestMatcherAuthorizer with Spring path patterns (`requestMatchers`) and with
 * regex rules (`addMatcher`, the same index), against a naive linear scan of the
 * regexes (what a hand-written rule table does, the role then checked), in one
 * process, side by side: single paths (first, middle, last rule, none) and every
 * rule's path in a fixed random order with one unmatched path in ten.
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

/** The same rules as Spring path patterns (each matches at least the regex's sample path). */
function pathPatterns(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    switch (i % 4) {
      case 0:
        return `/api/v1/resource${i}/**`;
      case 1:
        return `/admin/section${i}/{id}`;
      case 2:
        return `/files/team${i}/*/**`;
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
  /** Regex rules (addMatcher). */
  readonly portcullisNs: number;
  /** Path-pattern rules (requestMatchers). */
  readonly pathPatternNs: number;
  readonly naiveNs: number;
}

/** A deterministic shuffle (xorshift), so every run times the same order. */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  let seed = 0x9e3779b9;
  for (let i = out.length - 1; i > 0; i--) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    const j = (seed >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export function benchRules(): RuleRow[] {
  const user = AuthenticatedUser.from(new User('u', '').withRoles(['USER']));
  const rows: RuleRow[] = [];
  for (const size of SIZES) {
    const list = patterns(size);
    let matcher = AuthorizationManager.requestMatcher();
    for (const pattern of list) matcher = matcher.addMatcher(pattern, new Access().roles(['USER']));
    const byPath = AuthorizationManager.requestMatcher();
    for (const pattern of pathPatterns(size)) {
      byPath.requestMatchers(pattern, new Access().roles(['USER']));
    }
    // The same flags portcullis compiles rules with by default (case-insensitive), and
    // the same decision once a rule is found (the user's role), as a hand-written table.
    const naive = list.map((p) => new RegExp(`^(?:${p})$`, 'siu'));
    const scan = (path: string) => {
      const found = naive.findIndex((re) => re.test(path));
      return found === -1 || user.hasRole('USER');
    };
    const single = (path: string) => [request(path)];
    const cases: [string, SecurityRequest[]][] = [
      ['first rule', single(samplePath(0))],
      ['middle rule', single(samplePath(Math.floor(size / 2)))],
      ['last rule', single(samplePath(size - 1))],
      ['no rule (default: authenticated)', single('/public/index.html')],
      // Every rule's path once and one unmatched path in ten, in a fixed random order.
      [
        'random paths (every rule once, 10% unmatched)',
        shuffled([
          ...Array.from({ length: size }, (_, i) => samplePath(i)),
          ...Array.from({ length: Math.ceil(size / 9) }, (_, i) => `/public/page${String(i)}`),
        ]).map(request),
      ],
    ];
    for (const [name, requests] of cases) {
      for (const req of requests) {
        const expected = naive.findIndex((re) => re.test(req.path));
        if (!req.path.startsWith('/public/') && expected === -1) {
          throw new Error(`no rule for ${req.path}`);
        }
        for (const authorizer of [matcher, byPath]) {
          const decision = authorizer.authorize(user, req);
          if (decision instanceof Promise || !decision.granted) {
            throw new Error(`portcullis did not grant ${req.path} synchronously`);
          }
        }
      }
      const count = requests.length;
      let at = 0;
      const next = () => {
        const req = requests[at] as SecurityRequest;
        at = at + 1 === count ? 0 : at + 1;
        return req;
      };
      const iterations = Math.max(2_000, Math.floor(2_000_000 / size));
      const portcullisNs = timePerCall(() => matcher.authorize(user, next()), iterations);
      const pathPatternNs = timePerCall(() => byPath.authorize(user, next()), iterations);
      const naiveNs = timePerCall(() => scan(next().path), iterations);
      rows.push({ rules: size, case: name, portcullisNs, pathPatternNs, naiveNs });
    }
  }
  return rows;
}

export function printRules(rows: RuleRow[]): void {
  console.log('\n## URL rule lookup (first match), ns per request, best of 7 rounds\n');
  console.log(
    '| rules | case | path patterns (requestMatchers) | regex index (addMatcher) | naive linear scan | naive / regex index | naive / path patterns |',
  );
  console.log('|---:|---|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.rules} | ${row.case} | ${fmt(row.pathPatternNs)} | ${fmt(row.portcullisNs)} | ${fmt(row.naiveNs)} | ${fmt(row.naiveNs / row.portcullisNs, 1)}× | ${fmt(row.naiveNs / row.pathPatternNs, 1)}× |`,
    );
  }
  const size = Math.max(...rows.map((r) => r.rules));
  const largest = rows.filter((row) => row.rules === size);
  const random = largest.find((row) => row.case.startsWith('random'));
  const first = largest.find((row) => row.case === 'first rule');
  if (random === undefined) return;
  const speedup = random.naiveNs / random.portcullisNs;
  console.log(
    `\n- URL rules at ${String(size)} rules, random paths: path patterns ` +
      `${fmt(random.naiveNs / random.pathPatternNs, 1)}× faster than the linear scan, regex rules ` +
      `${fmt(speedup, 1)}× faster ` +
      `than the linear scan, goal ≥ 20×: ${speedup >= 20 ? 'achieved' : 'not achieved'}` +
      (first
        ? ` (a match on the first rule alone, where the scan stops at once: ${fmt(first.naiveNs / first.portcullisNs, 1)}×).`
        : '.') +
      ' Same first match as the scan on every path: test/authorization/rule-index.test.ts (randomized).',
  );
}
