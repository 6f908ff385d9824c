/**
 * The example's own routes (SPEC.md's), without any security: `examples/app.ts`
 * puts portcullis in front of them, and the benchmark's baseline uses them bare.
 */
import type { ServerResponse } from 'node:http';
import { SecurityContext } from 'portcullis';
import type { SecuredRequest } from 'portcullis/node';
import { graphqlHandler } from './graphql-schema.js';
import { trpcHandler } from './trpc-router.js';

type Route = (req: SecuredRequest, res: ServerResponse) => void;

/** A plain-text answer. */
export const text = (res: ServerResponse, status: number, body: string): void => {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(body);
};

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const routes: Record<string, Route> = {
  'GET /': (_req, res) => {
    text(
      res,
      200,
      'Welcome to the portcullis example. Try /profile with HTTP Basic, POST /auth/login for a bearer token, or /me in a browser.\n',
    );
  },
  'GET /health': (_req, res) => {
    text(res, 200, 'OK\n');
  },
  'GET /profile': (_req, res) => {
    const user = SecurityContext.requireUser();
    text(
      res,
      200,
      `username: ${user.username}\nroles: ${[...user.roles].join(', ')}\n` +
        `authorities: ${[...user.authorities].join(', ')}\n`,
    );
  },
  'GET /posts': (_req, res) => {
    text(res, 200, 'All posts\n');
  },
  'POST /posts': (_req, res) => {
    text(res, 201, 'Post created\n');
  },
  'GET /admin': (_req, res) => {
    text(res, 200, 'Admin area\n');
  },
  'GET /admin/dashboard': (_req, res) => {
    text(res, 200, 'Admin dashboard\n');
  },
  'POST /admin/users': (_req, res) => {
    text(res, 201, 'User created\n');
  },
  'GET /api/data': (_req, res) => {
    json(res, 200, { data: [1, 2, 3] });
  },
  'GET /api/profile': (req, res) => {
    json(res, 200, { username: req.user?.username, roles: [...(req.user?.roles ?? [])] });
  },
};

/** The application's router, without any security (the benchmark's baseline uses it bare). */
export function routeRequest(req: SecuredRequest, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
  if (path.startsWith('/trpc/')) {
    trpcHandler(req, res);
    return;
  }
  if (path === '/graphql') {
    graphqlHandler(req, res).catch(() => {
      if (!res.headersSent) text(res, 500, 'Internal Server Error\n');
      else res.destroy();
    });
    return;
  }
  const route = routes[`${req.method ?? 'GET'} ${path}`];
  if (route) route(req, res);
  else text(res, 404, 'Not Found\n');
}
