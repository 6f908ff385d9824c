import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SecurityHeaders,
  applySecurityHeaders,
  type SecurityHeadersOptions,
} from '../../src/headers/index.js';
import { DEFAULT_HEADERS } from '../support/headers.js';

/** Runs helmet's middleware on a fake response and records what it did, lower-cased. */
function runHelmet(options?: Readonly<HelmetOptions>): {
  set: Map<string, string>;
  removed: string[];
} {
  const set = new Map<string, string>();
  const removed: string[] = [];
  const res = {
    setHeader(name: string, value: string) {
      set.set(name.toLowerCase(), value);
    },
    removeHeader(name: string) {
      removed.push(name.toLowerCase());
    },
  };
  let error: unknown;
  let called = false;
  const middleware = helmet(options) as unknown as (
    req: unknown,
    res: unknown,
    next: (err?: unknown) => void,
  ) => void;
  middleware({}, res, (err) => {
    called = true;
    error = err;
  });
  expect(called).toBe(true);
  expect(error).toBeUndefined();
  return { set, removed };
}

function ours(options?: SecurityHeadersOptions): { set: Map<string, string>; removed: string[] } {
  const sh = new SecurityHeaders(options);
  return { set: new Map(sh.headers), removed: [...sh.removed] };
}

describe('defaults equal helmet 8', () => {
  it('sets the same header names and values and removes X-Powered-By', () => {
    const expected = runHelmet();
    const actual = ours();
    expect(Object.fromEntries(actual.set)).toEqual(Object.fromEntries(expected.set));
    expect(actual.removed).toEqual(expected.removed);
    expect(actual.removed).toEqual(['x-powered-by']);
  });

  it('sets exactly the documented defaults', () => {
    expect(Object.fromEntries(new SecurityHeaders().headers)).toEqual(DEFAULT_HEADERS);
  });
});

/** Options written the same way for both libraries. */
const sharedOptions: readonly SecurityHeadersOptions[] = [
  { strictTransportSecurity: { maxAge: 63_072_000, includeSubDomains: true, preload: true } },
  { strictTransportSecurity: { maxAge: 0, includeSubDomains: false } },
  { referrerPolicy: { policy: ['origin', 'strict-origin-when-cross-origin'] } },
  { referrerPolicy: { policy: 'same-origin' } },
  { xFrameOptions: { action: 'deny' } },
  { crossOriginEmbedderPolicy: true },
  { crossOriginEmbedderPolicy: { policy: 'credentialless' } },
  { crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' } },
  { crossOriginResourcePolicy: { policy: 'cross-origin' } },
  { xDnsPrefetchControl: { allow: true } },
  { xPermittedCrossDomainPolicies: { permittedPolicies: 'by-content-type' } },
  {
    contentSecurityPolicy: false,
    originAgentCluster: false,
    xContentTypeOptions: false,
    xDownloadOptions: false,
    xPoweredBy: false,
    xXssProtection: false,
  },
  {
    contentSecurityPolicy: {
      directives: {
        scriptSrc: ["'self'", 'https://cdn.example.com'],
        'connect-src': ["'self'", 'wss://live.example.com'],
        objectSrc: null,
        upgradeInsecureRequests: null,
      },
    },
  },
  {
    contentSecurityPolicy: {
      useDefaults: false,
      reportOnly: true,
      directives: { defaultSrc: "'none'", reportUri: '/csp-report' },
    },
  },
];

describe('options written alike give helmet 8 output', () => {
  it.each(sharedOptions.map((options) => [JSON.stringify(options), options] as const))(
    '%s',
    (_, options) => {
      const expected = runHelmet(options as HelmetOptions);
      const actual = ours(options);
      expect(Object.fromEntries(actual.set)).toEqual(Object.fromEntries(expected.set));
      expect(actual.removed).toEqual(expected.removed);
    },
  );
});

describe('on real Express servers on 127.0.0.1', () => {
  const servers: http.Server[] = [];
  const urls: string[] = [];

  async function listen(app: express.Express): Promise<string> {
    const server = http.createServer(app);
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  beforeAll(async () => {
    const withHelmet = express();
    withHelmet.use(helmet());
    withHelmet.get('/', (_req, res) => {
      res.send('ok');
    });
    const sh = new SecurityHeaders();
    const withPortcullis = express();
    withPortcullis.use((_req, res, next) => {
      applySecurityHeaders(res, sh.forRequest());
      next();
    });
    withPortcullis.get('/', (_req, res) => {
      res.send('ok');
    });
    urls.push(await listen(withHelmet), await listen(withPortcullis));
  });

  afterAll(async () => {
    await Promise.all(
      servers.map(async (server) => {
        server.close();
        server.closeAllConnections();
        await once(server, 'close');
      }),
    );
  });

  it('answers with the same headers (X-Powered-By removed by both)', async () => {
    const [helmetResponse, ourResponse] = await Promise.all(urls.map((url) => fetch(url)));
    const strip = (headers: Headers) => {
      const all = Object.fromEntries(headers);
      delete all.date;
      return all;
    };
    expect(ourResponse?.status).toBe(200);
    expect(strip(ourResponse!.headers)).toEqual(strip(helmetResponse!.headers));
    expect(ourResponse!.headers.has('x-powered-by')).toBe(false);
    expect(ourResponse!.headers.get('strict-transport-security')).toBe(
      'max-age=31536000; includeSubDomains',
    );
    await Promise.all([helmetResponse!.text(), ourResponse!.text()]);
  });
});
