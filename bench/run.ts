/**
 * `npm run bench`: portcullis' costs, measured side by side in one run.
 *
 *   npm run bench                 # everything
 *   npm run bench -- rules        # only the in-process rule lookup
 *   npm run bench -- expression   # only the expression evaluation
 *   npm run bench -- trpc         # only the tRPC guard (in process on Node 20, 22, 24; and over HTTP)
 *   npm run bench -- trpc --node 24   # the in-process tRPC rows on these Node majors only (or BENCH_NODE=24)
 *   npm run bench -- graphql      # only the GraphQL directives against graphql-shield (execute, in process per Node, over HTTP)
 *   npm run bench -- graphql --node 24   # the in-process GraphQL rows (Fetch handler) on these Node majors only (or BENCH_NODE=24)
 *   npm run bench -- graphql-inprocess   # only those in-process GraphQL rows per Node (also takes --node)
 *   npm run bench -- jwt          # only JWT verification (jose, fast-jwt) and bearer over HTTP
 *   npm run bench -- nestjs       # only NestJS: @PreAuthorize against a hand-written CanActivate guard
 *   npm run bench -- micro        # only security headers, Argon2 verify, cached Basic
 *   npm run bench -- http --seconds 5 --rounds 3   # Basic pipeline and the HTTP stacks
 *   npm run bench -- memory       # heap over 1,000,000 requests with 100,000 distinct tokens
 *   npm run bench -- baseline [--ref <commit>]   # the pipeline's overhead before (a commit) and after (this tree)
 *   npm run bench -- stores       # refreshes/s and the example's CPU per request on memory and on Redis
 *   npm run bench -- rate-limit   # a rate limit's cost per request against rate-limiter-flexible, memory and Redis
 *
 * A full run (no section named) also writes BENCHMARKS.md at the project root and
 * bench/overhead.svg (bench/report.ts); a partial run only prints, so the report
 * always holds every section of one run.
 */
import { availableParallelism, cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { benchBaseline, printBaseline } from './baseline.js';
import { benchExpressions, printExpressions } from './expression.js';
import { benchGraphql, benchGraphqlHttp, printGraphql, printGraphqlHttp } from './graphql.js';
import { benchGraphqlInProcess, printGraphqlInProcess } from './graphql-inprocess.js';
import { nodeMajors } from './inprocess.js';
import { benchHttp, printHttp } from './http.js';
import { benchJwt, printJwt } from './jwt.js';
import { pinSelf } from './lib.js';
import { benchMemory, printMemory } from './memory.js';
import { benchMicro, printMicro } from './micro.js';
import { benchNestjs, printNestjs } from './nestjs.js';
import { printRateLimit } from './rate-limit-report.js';
import { benchRateLimit } from './rate-limit.js';
import { capture, writeReport, type OverheadBar } from './report.js';
import { benchRules, printRules } from './rules.js';
import { benchStacks, printStacks, stackBars } from './stacks.js';
import { benchStores, printStores } from './stores.js';
import { benchTrpc, printTrpc } from './trpc.js';
import { benchTrpcInProcess, printTrpcInProcess, resolveRuntimes } from './trpc-inprocess.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    ref: { type: 'string' },
    node: { type: 'string' },
  },
});
const only = new Set(positionals);
const want = (name: string) => only.size === 0 || only.has(name);

await capture(() => {
  console.log(
    `# portcullis benchmarks\n\nNode ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), ` +
      `load generator ${pinSelf() ? 'pinned to core 0, servers to core 1' : 'not pinned (no taskset)'}.`,
  );
});

if (want('expression')) {
  const rows = await benchExpressions();
  await capture(() => {
    printExpressions(rows);
  });
}
if (want('rules')) {
  const rows = benchRules();
  await capture(() => {
    printRules(rows);
  });
}
if (want('micro')) {
  const result = await benchMicro();
  await capture(() => {
    printMicro(result);
  });
}
if (want('graphql')) {
  const result = await benchGraphql();
  await capture(() => {
    printGraphql(result);
  });
}
if (want('graphql') || only.has('graphql-inprocess')) {
  const inProcess = await benchGraphqlInProcess({
    runtimes: resolveRuntimes(nodeMajors(values.node)),
  });
  await capture(() => {
    printGraphqlInProcess(inProcess);
  });
}
const load = {
  seconds: Number(values.seconds),
  rounds: Number(values.rounds),
  warmup: Number(values.warmup),
};
if (want('graphql')) {
  const rows = await benchGraphqlHttp(load);
  await capture(() => {
    printGraphqlHttp(rows);
  });
}
if (want('trpc')) {
  const inProcess = await benchTrpcInProcess({
    runtimes: resolveRuntimes(nodeMajors(values.node)),
  });
  await capture(() => {
    printTrpcInProcess(inProcess);
  });
  const rows = await benchTrpc(load);
  await capture(() => {
    printTrpc(rows);
  });
}
if (want('jwt')) {
  const result = await benchJwt(load);
  await capture(() => {
    printJwt(result);
  });
}
if (want('nestjs')) {
  const rows = await benchNestjs(load);
  await capture(() => {
    printNestjs(rows);
  });
}
let bars: OverheadBar[] = [];
if (want('http')) {
  const rows = await benchHttp(load);
  await capture(() => {
    printHttp(rows);
  });
  const stacks = await benchStacks(load);
  await capture(() => {
    printStacks(stacks);
  });
  const basic = rows[1];
  bars = [
    ...stackBars(stacks),
    ...(basic
      ? [
          {
            name: 'node http + portcullis, Basic (cached Argon2id)',
            micros: basic.best.cpuPerRequestMicros - rows[0]!.best.cpuPerRequestMicros,
            portcullis: true,
          },
        ]
      : []),
  ];
}
if (want('memory')) {
  const result = await benchMemory();
  await capture(() => {
    printMemory(result);
  });
}
if (want('baseline')) {
  const result = await benchBaseline({ ...load, ref: values.ref });
  await capture(() => {
    printBaseline(result);
  });
}
if (want('stores')) {
  const result = await benchStores(load);
  await capture(() => {
    printStores(result);
  });
}
if (want('rate-limit')) {
  const result = await benchRateLimit();
  await capture(() => {
    printRateLimit(result);
  });
}
if (only.size === 0) writeReport(bars);
