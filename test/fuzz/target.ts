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
