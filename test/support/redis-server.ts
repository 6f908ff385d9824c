// Starts a real `redis-server` (Debian's package) for the tests: on a free
// 127.0.0.1 port (never 6379), without persistence, killed by the test that started
// it. `restart()` brings it back on the same port, to test an outage and recovery.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, connect } from 'node:net';

/** A running test Redis. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Kills the server (SIGKILL: an outage, not a clean shutdown) and waits for its exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence) and waits until it answers. */
  restart(): Promise<void>;
}

const BINARY = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

/** A port the kernel says is free now (bound to port 0 and released). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

/** Sends PING over a raw socket; true when the server answers `+PONG`. */
async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => {
      done(false);
    });
    socket.once('error', () => {
      done(false);
    });
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

function launch(port: number): ChildProcess {
  const child = spawn(
    BINARY,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory-policy',
      'noeviction',
      '--protected-mode',
      'yes',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return child;
}

/** Waits until the server on `port` answers PING; false when `child` exits first or after 5 s. */
async function waitReady(child: ChildProcess, port: number): Promise<boolean> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    if (await answersPing(port)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  child.kill('SIGKILL');
  await exited;
}

/**
 * Starts `redis-server` on a free 127.0.0.1 port. Call `stop()` in `afterAll`.
 * Fails with a clear message when the binary is missing.
 */
export async function startRedis(): Promise<TestRedis> {
  if (!existsSync(BINARY)) {
    throw new Error(
      `redis-server not found at ${BINARY}: install Debian's package (apt-get install redis-server) or set REDIS_SERVER`,
    );
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    if (port === 6379 || port === 0) continue;
    let child = launch(port);
    if (!(await waitReady(child, port))) {
      // Someone took the port between the probe and the launch: try another one.
      await kill(child);
      continue;
    }
    let stopped = false;
    const handle: TestRedis = {
      url: `redis://127.0.0.1:${port}`,
      port,
      async stop() {
        stopped = true;
        await kill(child);
      },
      async restart() {
        await kill(child);
        for (let tries = 0; tries < 20; tries++) {
          child = launch(port);
          if (await waitReady(child, port)) {
            stopped = false;
            return;
          }
          await kill(child);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        throw new Error(`redis-server did not restart on port ${port}`);
      },
    };
    process.once('exit', () => {
      if (!stopped) child.kill('SIGKILL');
    });
    return handle;
  }
  throw new Error('redis-server could not start on a free port after 5 attempts');
}
