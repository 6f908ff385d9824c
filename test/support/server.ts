import { createServer, request, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A node server on 127.0.0.1 and an ephemeral port, closed by `close()`. */
export interface TestServer {
  readonly origin: string;
  close(): Promise<void>;
}

/** Starts `listener` on 127.0.0.1. */
export async function listen(listener: RequestListener | Server): Promise<TestServer> {
  const server = typeof listener === 'function' ? createServer(listener) : listener;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  };
}

/** `Authorization: Basic` for a username and password. */
export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/**
 * Sends a raw HTTP/1.1 request over a socket, so the request target reaches the
 * server exactly as written (fetch would normalize `/a/../b`).
 */
export async function rawRequest(
  origin: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: string; body: string }> {
  const { connect } = await import('node:net');
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/u.exec(text);
      const split = text.indexOf('\r\n\r\n');
      resolve({
        status: match ? Number(match[1]) : 0,
        headers: text.slice(0, split),
        body: text.slice(split + 4),
      });
    });
    const lines = [`${method} ${target} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close'];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  });
}

/** What {@link nodeClientRequest} answers: every `Set-Cookie` line apart, the other headers by name. */
export interface NodeClientResponse {
  readonly status: number;
  readonly location: string | undefined;
  readonly setCookies: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Sends a request with node's HTTP client, which keeps every `Set-Cookie` line apart. */
export function nodeClientRequest(
  url: string,
  init: {
    readonly method: string;
    readonly headers?: Readonly<Record<string, string>>;
    readonly body?: string;
  },
): Promise<NodeClientResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method, headers: init.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (name !== 'set-cookie' && typeof value === 'string') headers[name] = value;
        }
        resolve({
          status: res.statusCode ?? 0,
          location: res.headers.location,
          setCookies: res.headers['set-cookie'] ?? [],
          headers,
          body,
        });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
