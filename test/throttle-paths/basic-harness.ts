/** HTTP Basic requests to a throttled site, over node `http` or through the Fetch adapter. */
import { withSecurity as withFetchSecurity } from '../../src/fetch/index.js';
import { withSecurity } from '../../src/node/index.js';
import type { LoginThrottleOptions } from '../../src/throttle/index.js';
import { listen, type TestServer } from '../support/server.js';
import { basic, makeSite, type Site } from './support.js';

export interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: string;
}

/** Sends `GET /private` with Basic credentials from `address` (the node harness forwards it through a trusted proxy header). */
export type Send = (username: string, password: string, address?: string) => Promise<Answer>;

export interface Harness {
  readonly site: Site;
  readonly send: Send;
  close(): Promise<void>;
}

async function answerOf(response: Response): Promise<Answer> {
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: await response.text(),
  };
}

/** The site on node `http` at 127.0.0.1; `address` travels in `X-Forwarded-For`. */
export async function nodeHarness(options: LoginThrottleOptions = {}): Promise<Harness> {
  const site = makeSite(options);
  const server: TestServer = await listen(
    withSecurity(site.transform, (_req, res) => {
      res.end('secret');
    }),
  );
  return {
    site,
    send: async (username, password, address) =>
      answerOf(
        await fetch(`${server.origin}/private`, {
          headers: {
            authorization: basic(username, password),
            ...(address === undefined ? {} : { 'x-forwarded-for': address }),
          },
        }),
      ),
    close: () => server.close(),
  };
}

/** The site behind the Fetch adapter, the client's address given by the runtime. */
export function fetchHarness(options: LoginThrottleOptions = {}): Harness {
  const site = makeSite(options);
  // The runtime's extra argument is the client's address (as Bun's server would tell it).
  const handler = withFetchSecurity<[address: string]>(
    site.transform,
    () => new Response('secret'),
    {
      clientAddress: (_request, address) => address,
    },
  );
  return {
    site,
    send: async (username, password, address = '192.0.2.1') =>
      answerOf(
        await handler(
          new Request('https://app.example/private', {
            headers: { authorization: basic(username, password) },
          }),
          address,
        ),
      ),
    close: () => Promise.resolve(),
  };
}

export const ADAPTERS = {
  node: (options?: LoginThrottleOptions) =>
    nodeHarness({ trustedProxies: ['127.0.0.1'], ...options }),
  fetch: (options?: LoginThrottleOptions) => Promise.resolve(fetchHarness(options)),
};
