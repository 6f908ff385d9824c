/**
 * `npm start`: the example server on 127.0.0.1 (port from PORT, default 3000).
 */
import { createServer } from 'node:http';
import { DEMO_USERS, createApp, logSecurityEvents } from './app.js';

const port = Number(process.env['PORT'] ?? 3000);
const { listener, session } = await createApp();
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
  if (!session.passwordFromEnv) {
    console.log(
      '(No SESSION_PASSWORD set: sessions are sealed with a random password and die with the process.)',
    );
  }
});

const stop = (): void => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
