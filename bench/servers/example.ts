/**
 * A benchmark server process: the example application secured by portcullis
 * (`MODE=secure`; `secure-no-jwt-cache` with the JWT verified-token cache off; on Redis
 * with `REDIS_URL`) or the
 * same routes with security off (`MODE=bare`). It listens on
 * 127.0.0.1, reports its port over IPC and answers `cpu` messages with its CPU time.
 */
import { createServer, type RequestListener } from 'node:http';
import { serveForBenchmark } from './serve.js';
import { AuthenticatedUser, SecurityContext, User } from 'portcullis';
import { createApp, routeRequest } from '../../examples/app.js';
import { withSecurity, withSecurityHeaders, type SecuredRequest } from 'portcullis/node';

const mode = process.env['MODE'] ?? 'secure';
let listener: RequestListener;
if (mode === 'bare' || mode === 'headers') {
  // The same routes, with a fixed user so /profile answers the same body.
  const fixed = AuthenticatedUser.from(
    new User('user', '').withRoles(['USER']).withAuthorities(['posts:read']),
  );
  listener = (req, res) => {
    (req as SecuredRequest).user = fixed;
    SecurityContext.run(fixed, () => {
      routeRequest(req as SecuredRequest, res);
    });
  };
  if (mode === 'headers') listener = withSecurityHeaders(listener);
} else {
  // REDIS_URL: the users and the security state on Redis (the stores benchmark).
  const redisUrl = process.env['REDIS_URL'];
  const app = await createApp({
    jwtCache: mode !== 'secure-no-jwt-cache',
    // The routes are measured, not the /api rate limit (its own suite: rate-limit).
    apiRateLimit: false,
    ...(redisUrl === undefined || redisUrl === '' ? {} : { redisUrl }),
  });
  listener = mode === 'no-headers' ? withSecurity(app.transform, routeRequest) : app.listener;
}

serveForBenchmark(createServer(listener));
