import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Listens on 127.0.0.1 and an ephemeral port, reports the port to the benchmark
 * runner over IPC, answers its `cpu` messages with this process's CPU time (µs)
 * and its `heap` messages with the heap in use after a full collection (bytes; the
 * process must run with `--expose-gc`), and stops on `stop` or when the runner goes away.
 */
export function serveForBenchmark(server: Server): void {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
  process.on('message', (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpu: user + system });
    }
    if (message === 'heap') {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (gc === undefined) throw new Error('heap asked of a server started without --expose-gc');
      // Twice: the first pass can leave objects only the second one frees (weak refs).
      gc();
      gc();
      process.send?.({ heap: process.memoryUsage().heapUsed });
    }
    if (message === 'stop') server.close(() => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0));
}
