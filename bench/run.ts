/**
 * `npm run bench`: portcullis' costs, measured side by side in one run.
 *
 *   npm run bench                 # everything
 *   npm run bench -- rules        # only the in-process rule lookup
 *   npm run bench -- expression   # only the expression evaluation
 *   npm run bench -- trpc         # only the tRPC guard
 *   npm run bench -- graphql      # only the GraphQL directives against graphql-shield
 *   npm run bench -- jwt          # only JWT verification (jose, fast-jwt) and bearer over HTTP
 *   npm run bench -- http --seconds 5 --rounds 3
 */
import { availableParallelism, cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { benchExpressions, printExpressions } from './expression.js';
import { benchGraphql, printGraphql } from './graphql.js';
import { benchHttp, printHttp } from './http.js';
import { benchJwt, printJwt } from './jwt.js';
import { pinSelf } from './lib.js';
import { benchRules, printRules } from './rules.js';
import { benchTrpc, printTrpc } from './trpc.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
  },
});
const only = new Set(positionals);
const want = (name: string) => only.size === 0 || only.has(name);

console.log(
  `# portcullis benchmarks\n\nNode ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), ` +
    `load generator ${pinSelf() ? 'pinned to core 0, servers to core 1' : 'not pinned (no taskset)'}.`,
);

if (want('expression')) printExpressions(await benchExpressions());
if (want('rules')) printRules(benchRules());
if (want('graphql')) printGraphql(await benchGraphql());
const load = {
  seconds: Number(values.seconds),
  rounds: Number(values.rounds),
  warmup: Number(values.warmup),
};
if (want('trpc')) printTrpc(await benchTrpc(load));
if (want('jwt')) printJwt(await benchJwt(load));
if (want('http')) printHttp(await benchHttp(load));
