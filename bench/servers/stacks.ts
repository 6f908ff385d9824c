/**
 * A benchmark server process: `GET /api/profile` answering `{"hello":"world"}` on one
 * HTTP stack chosen by `STACK`:
 *
 * - `node-bare`, `express-bare`, `fastify-bare`: no security;
 * - `node-portcullis`: portcullis's full pipeline on node `http` (firewall, JWT with
 *   its verified-token cache, 100 URL rules, security headers);
 * - `express-helmet-jwt`: helmet + express-jwt (HS256);
 * - `express-portcullis`: `securityHeaders()` + `security(transform)` from portcullis/node;
 * - `fastify-helmet-jwt`: @fastify/helmet + @fastify/jwt (`verify.cache` on) in an
 *   `onRequest` hook;
 * - `fastify-portcullis`: the `fastifySecurityHeaders` and `portcullis` plugins.
 *
 * Every secured stack accepts the same HS256 token, signed with `JWT_SECRET`, and
 * answers 401 without one. Listens on 127.0.0.1, reports its port over IPC and
 * answers `cpu` messages with its CPU time.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import helmetFastify from '@fastify/helmet';
import jwtFastify from '@fastify/jwt';
import express, { type ErrorRequestHandler } from 'express';
import { expressjwt } from 'express-jwt';
import Fastify from 'fastify';
import helmet from 'helmet';
import { Access, AuthorizationManager, SecurityTransform } from 'portcullis';
import {
  security as fastifySecurity,
  securityHeaders as fastifySecurityHeaders,
} from 'portcullis/fastify';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { withSecurity, security, securityHeaders, withSecurityHeaders } from 'portcullis/node';
import { serveForBenchmark } from './serve.js';

const stack = process.env['STACK'] ?? 'node-bare';
const secret = process.env['JWT_SECRET'];
if (secret === undefined) throw new Error('JWT_SECRET is required');
const answer = { hello: 'world' };
const body = JSON.stringify(answer);

/** Firewall (on by default), JWT with its cache, 100 URL rules; /api/profile matches the last. */
function transform(): SecurityTransform {
  const jwt = new JwtAuthenticator(new JwtConfig(secret!));
  let rules = AuthorizationManager.requestMatcher().bearer();
  for (let i = 0; i < 99; i++) {
    rules = rules.addMatcher(`/section-${String(i)}(?:/.*)?`, new Access().roles(['ADMIN']));
  }
  rules = rules.addMatcher('/api/.*', new Access().roles(['USER']));
  const configured = rules;
  return new SecurityTransform().configAuthenticator(() => jwt).configAuthorizer(() => configured);
}

function nodeHandler(_req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(body);
}

/** Answers express-jwt's refusals with their status (401) and no stack trace. */
const expressErrors: ErrorRequestHandler = (error: { status?: number }, _req, res, next) => {
  if (res.headersSent) {
    next(error);
    return;
  }
  res.status(error.status ?? 500).json({ error: 'unauthorized' });
};

async function start(): Promise<void> {
  switch (stack) {
    case 'node-bare':
      serveForBenchmark(createServer(nodeHandler));
      return;
    case 'node-portcullis':
      serveForBenchmark(createServer(withSecurityHeaders(withSecurity(transform(), nodeHandler))));
      return;
    case 'express-bare':
    case 'express-helmet-jwt':
    case 'express-portcullis': {
      const app = express();
      if (stack === 'express-helmet-jwt') {
        app.use(helmet());
        app.use(expressjwt({ secret: secret!, algorithms: ['HS256'] }));
      }
      if (stack === 'express-portcullis') {
        app.use(securityHeaders());
        app.use(security(transform()));
      }
      app.get('/api/profile', (_req, res) => {
        res.json(answer);
      });
      app.use(expressErrors);
      serveForBenchmark(createServer(app));
      return;
    }
    case 'fastify-bare':
    case 'fastify-helmet-jwt':
    case 'fastify-portcullis': {
      let server: ReturnType<typeof createServer> | undefined;
      const app = Fastify({
        serverFactory: (handler) => {
          server = createServer(handler);
          return server;
        },
      });
      if (stack === 'fastify-helmet-jwt') {
        await app.register(helmetFastify);
        await app.register(jwtFastify, { secret: secret!, verify: { cache: true } });
        app.addHook('onRequest', async (request) => {
          await request.jwtVerify();
        });
      }
      if (stack === 'fastify-portcullis') {
        await app.register(fastifySecurityHeaders);
        await app.register(fastifySecurity, { transform: transform() });
      }
      app.get('/api/profile', () => answer);
      await app.ready();
      serveForBenchmark(server!);
      return;
    }
    default:
      throw new Error(`unknown STACK ${stack}`);
  }
}

await start();
