import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Listens on 127.0.0.1 and an ephemeral port, reports the port to the benchmark
 * runner over IPC, answers its `cpu` messages with this process's CPU time (µs)
 * and stops on `stop` or when the runner goes away.
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
    if (message === 'stop') server.close(() => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0));
}
