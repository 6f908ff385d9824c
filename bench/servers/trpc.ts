/**
 * A benchmark server process: a tRPC standalone HTTP server whose context
 * authenticates HTTP Basic (Argon2id, cached), with the same query unguarded,
 * behind a do-nothing middleware, and behind `secured('USER')`. Reports its port
 * over IPC and answers `cpu` messages with its CPU time.
 */
import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { serveForBenchmark } from './serve.js';
import { AuthenticationManager, User } from 'portcullis';
import { createDelegatingPasswordEncoder } from 'portcullis/argon2';
import { createSecurityContext, secured, type UserContext } from 'portcullis/trpc';

const encoder = createDelegatingPasswordEncoder();
const store = AuthenticationManager.inMemoryAuthentication()
  .passwordEncoder(encoder)
  .withUser(
    User.withEncodedPassword('user', await encoder.encode('user-password')).withRoles(['USER']),
  );
const securityContext = createSecurityContext({ authenticator: store });

const t = initTRPC.context<UserContext>().create();
const answer = { hello: 'world' };
const router = t.router({
  plain: t.procedure.query(() => answer),
  noop: t.procedure.use(({ next }) => next()).query(() => answer),
  guarded: t.procedure.use(secured('USER')).query(() => answer),
});

serveForBenchmark(createHTTPServer({ router, createContext: securityContext }));
