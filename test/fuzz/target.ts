/**
 * The fuzzer's target, run in a child process: the example application
 * (`examples/app.ts`, every mechanism on: Basic, bearer tokens, sessions with the
 * login form, tRPC, GraphQL) on 127.0.0.1 and a free port, in memory or, with
 * `REDIS_URL`, on Redis. It prints
 * `{"port":…}` on one line once it listens, and stops on SIGTERM or when its
 * parent's stdin closes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../examples/app.js';

// REDIS_URL: the users and the security state on that Redis (the fuzzer of the Redis mode).
const redisUrl = process.env['REDIS_URL'];
const { listener, close } = await createApp({
  session: { secure: false },
  // Every request comes from 127.0.0.1: with the default address counter, the first
  // hundred wrong credentials would turn every later credential check into a 429 for
  // minutes, and the credential paths would go unfuzzed. Short username delays keep
  // both the throttled answers and the checks themselves in the mix.
  loginThrottle: {
    address: false,
    username: { max: 20, window: '1m', delay: '1s', maxDelay: '4s' },
  },
  // The same for the /api rate limit (600 a minute per user or address): a one-second
  // window keeps both its 429s and the routes behind it in the mix.
  apiRateLimit: { window: '1s', max: 50 },
  ...(redisUrl === undefined || redisUrl === '' ? {} : { redisUrl }),
});
const server = createServer(listener);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});

const stop = (): void => {
  server.closeAllConnections();
  server.close(() => {
    void close().finally(() => process.exit(0));
  });
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
