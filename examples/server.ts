/**
 * `npm start`: the example server on 127.0.0.1 (port from PORT, default 3000; `0`
 * for a free one). `OAUTH2_DEV_PROVIDER=1 npm start` also starts a development
 * OpenID provider on 127.0.0.1 (port from OAUTH2_DEV_PROVIDER_PORT, default a free
 * one) and offers "Log in with the local test provider" on the login page.
 *
 * `REDIS_URL=redis://127.0.0.1:6379 npm start` keeps the users and every piece of
 * security state on that Redis, shared by every instance started so (give them the
 * same SESSION_PASSWORD and JWT_SECRET). `JWT_REFRESH_GRACE_SECONDS` (0 to 60,
 * default 10) sets the refresh tokens' grace window. `TRUSTED_PROXIES` (a hop count
 * such as `1`, or addresses and CIDR ranges separated by commas) names the proxies
 * whose `X-Forwarded-For` the login throttle believes; without it, the socket's
 * address is the client's.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_USERS, createApp, logSecurityEvents } from './app.js';

const port = Number(process.env['PORT'] ?? 3000);
const redisUrl = process.env['REDIS_URL'];
const grace = process.env['JWT_REFRESH_GRACE_SECONDS'];
const withProvider = process.env['OAUTH2_DEV_PROVIDER'] === '1';
// A hop count (`1`) or addresses and CIDR ranges (`10.0.0.0/8,loopback`).
const proxies = process.env['TRUSTED_PROXIES'];
const trustedProxies =
  proxies === undefined || proxies === ''
    ? undefined
    : /^\d+$/u.test(proxies)
      ? Number(proxies)
      : proxies.split(',').map((entry) => entry.trim());
if (withProvider && !(Number.isInteger(port) && port > 0 && port < 65_536)) {
  // The provider registers the redirect URI with the port before the server listens.
  throw new TypeError('OAUTH2_DEV_PROVIDER=1 needs a fixed PORT (1 to 65535)');
}
const { listener, session, oauth2, mode, close } = await createApp({
  ...(withProvider
    ? {
        oauth2DevProvider: {
          appOrigin: `http://127.0.0.1:${port}`,
          providerPort: Number(process.env['OAUTH2_DEV_PROVIDER_PORT'] ?? 0),
        },
      }
    : {}),
  ...(redisUrl === undefined || redisUrl === '' ? {} : { redisUrl }),
  ...(grace === undefined ? {} : { refreshGraceSeconds: Number(grace) }),
  trustedProxies,
  onStoreError: (error) => {
    // The connection's state only (no URL, no credentials): requests needing Redis
    // get 503 meanwhile, and the client reconnects by itself.
    const what = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
    console.error(`[redis] ${what}`);
  },
});
logSecurityEvents();

const server = createServer(listener);
server.listen(port, '127.0.0.1', () => {
  const listening = (server.address() as AddressInfo).port;
  console.log(`portcullis example listening on http://127.0.0.1:${listening}`);
  console.log(
    mode === 'redis'
      ? 'Users and security state on Redis (REDIS_URL), shared by every instance on it.'
      : 'Users and security state in memory (this process only; REDIS_URL=redis://… to share them).',
  );
  console.log('Demo users (HTTP Basic, or POST /auth/login for a bearer token):');
  for (const user of DEMO_USERS) {
    const roles = user.roles.length > 0 ? user.roles.join(', ') : 'no roles';
    const authorities = user.authorities.length > 0 ? user.authorities.join(', ') : 'none';
    console.log(`  ${user.username} / ${user.password}  (${roles}; ${authorities})`);
  }
  console.log(`Try: curl -u user:user-password http://127.0.0.1:${listening}/profile`);
  console.log(
    `Or a bearer token: curl -X POST -H 'content-type: application/json' ` +
      `-d '{"username":"user","password":"user-password"}' http://127.0.0.1:${listening}/auth/login`,
  );
  console.log(
    `Or in a browser: http://127.0.0.1:${listening}/me (redirects to the login form; sessions on a sealed cookie)`,
  );
  if (session.secure) {
    console.log(
      `Session cookie: ${session.cookieName} (Secure, SESSION_SECURE=1): browsers send it over HTTPS only, ` +
        'so serve the example behind a TLS proxy (set SESSION_ORIGIN to its public origin).',
    );
  } else {
    console.log(
      `Session cookie: ${session.cookieName} without Secure (dangerouslyAllowInsecureCookie), for plain ` +
        'http://127.0.0.1 only; set SESSION_SECURE=1 behind HTTPS.',
    );
  }
  if (process.env['JWT_SECRET'] === undefined) {
    console.log(
      '(No JWT_SECRET set: tokens are signed with a random secret and die with the process.)',
    );
  }
  if (oauth2 === undefined) {
    console.log('(OAUTH2_DEV_PROVIDER=1 adds "Log in with the local test provider" to /login.)');
  } else {
    console.log(`Development OpenID provider (oidc-provider): ${oauth2.issuer}`);
    console.log(
      `  /login → "Log in with the local test provider" → log in there as a demo user ` +
        '(same password), or as stranger / stranger-password, whom the example refuses.',
    );
  }
  if (!session.passwordFromEnv) {
    console.log(
      '(No SESSION_PASSWORD set: sessions are sealed with a random password and die with the process.)',
    );
  }
});

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  server.close(() => {
    if (mode === 'redis') console.log('Closing the Redis connections.');
    void close().finally(() => process.exit(0));
  });
  server.closeAllConnections();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
