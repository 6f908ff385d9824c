/**
 * `npm start`: the example server on 127.0.0.1 (port from PORT, default 3000).
 * `OAUTH2_DEV_PROVIDER=1 npm start` also starts a development OpenID provider on
 * 127.0.0.1 (port from OAUTH2_DEV_PROVIDER_PORT, default a free one) and offers
 * "Log in with the local test provider" on the login page.
 */
import { createServer } from 'node:http';
import { DEMO_USERS, createApp, logSecurityEvents } from './app.js';

const port = Number(process.env['PORT'] ?? 3000);
const withProvider = process.env['OAUTH2_DEV_PROVIDER'] === '1';
if (withProvider && !(Number.isInteger(port) && port > 0 && port < 65_536)) {
  // The provider registers the redirect URI with the port before the server listens.
  throw new TypeError('OAUTH2_DEV_PROVIDER=1 needs a fixed PORT (1 to 65535)');
}
const { listener, session, oauth2, close } = await createApp(
  withProvider
    ? {
        oauth2DevProvider: {
          appOrigin: `http://127.0.0.1:${port}`,
          providerPort: Number(process.env['OAUTH2_DEV_PROVIDER_PORT'] ?? 0),
        },
      }
    : {},
);
logSecurityEvents();

const server = createServer(listener);
server.listen(port, '127.0.0.1', () => {
  console.log(`portcullis example listening on http://127.0.0.1:${port}`);
  console.log('Demo users (HTTP Basic, or POST /auth/login for a bearer token):');
  for (const user of DEMO_USERS) {
    const roles = user.roles.length > 0 ? user.roles.join(', ') : 'no roles';
    const authorities = user.authorities.length > 0 ? user.authorities.join(', ') : 'none';
    console.log(`  ${user.username} / ${user.password}  (${roles}; ${authorities})`);
  }
  console.log(`Try: curl -u user:user-password http://127.0.0.1:${port}/profile`);
  console.log(
    `Or a bearer token: curl -X POST -H 'content-type: application/json' ` +
      `-d '{"username":"user","password":"user-password"}' http://127.0.0.1:${port}/auth/login`,
  );
  console.log(
    `Or in a browser: http://127.0.0.1:${port}/me (redirects to the login form; sessions on a sealed cookie)`,
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

const stop = (): void => {
  server.close(() => {
    void close().finally(() => process.exit(0));
  });
  server.closeAllConnections();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
