/**
 * A benchmark server process: the example application's security configuration
 * (examples/app.ts `createApp`: firewall, Bearer JWT or HTTP Basic, the same URL
 * rules, security headers) around the example's routes, with the verified-token
 * cache off (`MODE=no-cache`, the default) or on (`MODE=cache`), which the example
 * does not let one choose. The JWT secret comes from `JWT_SECRET`, as in the example,
 * so tokens the example issues are accepted here. Listens on 127.0.0.1, reports its
 * port over IPC and answers `cpu` messages with its CPU time.
 */
import { createServer } from 'node:http';
import {
  Access,
  AuthenticationManager,
  AuthorizationManager,
  SecurityTransform,
  User,
} from 'portcullis';
import { createDelegatingPasswordEncoder } from 'portcullis/argon2';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { secureHandler, withSecurityHeaders } from 'portcullis/node';
import { DEMO_USERS, routeRequest } from '../../examples/app.js';
import { serveForBenchmark } from './serve.js';

const mode = process.env['MODE'] ?? 'no-cache';
if (mode !== 'cache' && mode !== 'no-cache') throw new Error(`unknown MODE ${mode}`);
const secret = process.env['JWT_SECRET'];
if (secret === undefined) throw new Error('JWT_SECRET is required');

const encoder = createDelegatingPasswordEncoder();
let store = AuthenticationManager.inMemoryAuthentication().passwordEncoder(encoder);
for (const demo of DEMO_USERS) {
  store = store.withUser(
    User.withEncodedPassword(demo.username, await encoder.encode(demo.password))
      .withRoles(demo.roles)
      .withAuthorities(demo.authorities),
  );
}
const config = new JwtConfig(secret).issuer('portcullis-example').expirationSecs(15 * 60);
if (mode === 'no-cache') config.cache(false);
const jwt = new JwtAuthenticator(config);

const transform = new SecurityTransform()
  .configAuthenticator(() => AuthenticationManager.anyOf(jwt, store))
  .configAuthorizer(() =>
    AuthorizationManager.requestMatcher()
      .httpBasic()
      .bearer()
      .addMatcher('/health', Access.permitAll())
      .addMatcher('/auth/(?:login|refresh)', Access.permitAll(), { methods: ['POST'] })
      .addMatcher('/profile', new Access().roles(['USER']))
      .addMatcher('/posts', new Access().roles(['USER']).authorities(['posts:read']), {
        methods: ['GET'],
      })
      .addMatcher('/posts', new Access().authorities(['posts:write']), { methods: ['POST'] })
      .addMatcher('/admin/users', new Access().roles(['ADMIN']).authorities(['users:write']), {
        methods: ['POST'],
      })
      .addMatcher('/admin(?:/.*)?', new Access().roles(['ADMIN']))
      .addMatcher('/api/.*', new Access().roles(['USER'])),
  );

serveForBenchmark(createServer(withSecurityHeaders(secureHandler(transform, routeRequest))));
