import { connect } from 'node:net';

/** What came back on the socket: the status, the head's lines, the body. */
export interface RawResponse {
  readonly status: number;
  /** Response header lines, lower-case names, in order. */
  readonly headers: readonly [string, string][];
  readonly body: string;
  /** The value of the first response header of this (lower-case) name. */
  header(name: string): string | undefined;
}

/**
 * Sends a request over a socket exactly as written, header lines included, so it
 * may repeat a header (fetch cannot send two `Authorization` lines), omit `Host`
 * or hold bytes fetch would refuse (latin1: one byte per character). `Connection:
 * close` is added; the answer is read to the end of the connection.
 */
export async function sendRaw(
  origin: string,
  requestLine: string,
  headers: readonly (readonly [string, string])[],
): Promise<RawResponse> {
  const url = new URL(origin);
  const lines = [requestLine, ...headers.map(([name, value]) => `${name}: ${value}`)];
  lines.push('Connection: close');
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  });
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = text.slice(0, split).split('\r\n');
  const parsed = headerLines.map((line): [string, string] => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
  });
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/u.exec(statusLine)?.[1] ?? 0),
    headers: parsed,
    body: text.slice(split + 4),
    header: (name) => parsed.find(([key]) => key === name)?.[1],
  };
}
