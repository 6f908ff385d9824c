import { createServer } from 'node:http';
import { createApp, type AppOptions } from '../../examples/app.js';
import { listen, type TestServer } from './server.js';

/**
 * The example application (examples/app.ts) listening on 127.0.0.1; `close` stops the
 * server, then what the application started (its stores, the development provider).
 */
export async function startExample(options?: AppOptions): Promise<TestServer> {
  const app = await createApp(options);
  const server = await listen(createServer(app.listener));
  return {
    origin: server.origin,
    close: async () => {
      try {
        await server.close();
      } finally {
        await app.close();
      }
    },
  };
}
