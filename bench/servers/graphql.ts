/**
 * A benchmark server process: graphql-http's node handler at `POST /graphql` on the
 * benchmark schema (graphql-schema.ts), the variant chosen by `STACK`:
 *
 * - `bare`: no security (the context holds no user);
 * - `bare-auth`: the bare schema, the user authenticated as below (authentication
 *   without authorization: what both secured variants share);
 * - `portcullis`: the security directives, the user from portcullis's
 *   `createGraphQLContext` over its JWT authenticator (cache on, the default);
 * - `shield`: graphql-shield (`cache: 'contextual'`) with the same rules, on the same
 *   portcullis context.
 *
 * Bearer tokens are HS256, signed with `JWT_SECRET`. Listens on 127.0.0.1, reports
 * its port over IPC and answers `cpu` messages with its CPU time.
 */
import { createServer } from 'node:http';
import { createHandler } from 'graphql-http/lib/use/http';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { loadGraphql } from '../graphql-schema.js';
import { serveForBenchmark } from './serve.js';

const secret = process.env['JWT_SECRET'];
if (secret === undefined) throw new Error('JWT_SECRET is required');
const stack = process.env['STACK'] ?? 'bare';

const lib = await loadGraphql();
const { bare, secured, shielded } = lib;
const security = lib.createGraphQLContext({
  authenticator: new JwtAuthenticator(new JwtConfig(secret)),
});
const handler =
  stack === 'bare'
    ? createHandler({ schema: bare, context: () => ({ user: null }) })
    : stack === 'bare-auth' || stack === 'portcullis' || stack === 'shield'
      ? createHandler({
          schema:
            stack === 'portcullis' ? secured : stack === 'shield' ? shielded('contextual') : bare,
          context: (req) => security(req),
        })
      : undefined;
if (handler === undefined) throw new Error(`unknown STACK ${stack}`);

serveForBenchmark(
  createServer((req, res) => {
    if (req.url === '/graphql') {
      handler(req, res).catch(() => {
        res.writeHead(500).end();
      });
      return;
    }
    res.writeHead(404).end();
  }),
);
