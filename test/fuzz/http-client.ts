import { connect } from 'node:net';

/** A response read off the socket. */
export interface RawResponse {
  readonly status: number;
  /** Header names in lower case, each with every value received. */
  readonly headers: ReadonlyMap<string, readonly string[]>;
  readonly body: Buffer;
}

/** How one exchange ended. */
export type Exchange =
  | { readonly kind: 'response'; readonly response: RawResponse; readonly ms: number }
  | { readonly kind: 'timeout'; readonly ms: number }
  | { readonly kind: 'closed'; readonly error: string | undefined; readonly ms: number };

const MAX_RESPONSE = 4 * 1024 * 1024;

/**
 * Sends `raw` (bytes exactly as given) on a new connection to 127.0.0.1:`port` and
 * reads one HTTP/1.1 response (framed by Content-Length, chunked encoding or the
 * close of the connection; 1xx interim responses skipped), then closes the socket.
 */
export function exchange(
  port: number,
  raw: Buffer,
  timeoutMs: number,
  head: boolean,
): Promise<Exchange> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let buffered = Buffer.alloc(0);
    let settled = false;
    let error: string | undefined;
    const finish = (result: Exchange): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const elapsed = (): number => performance.now() - started;
    const timer = setTimeout(() => {
      finish({ kind: 'timeout', ms: elapsed() });
    }, timeoutMs);
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length > MAX_RESPONSE) {
        finish({ kind: 'closed', error: 'response too large', ms: elapsed() });
        return;
      }
      const response = parse(buffered, head, false);
      if (response) finish({ kind: 'response', response, ms: elapsed() });
    });
    socket.on('close', () => {
      const response = parse(buffered, head, true);
      finish(
        response
          ? { kind: 'response', response, ms: elapsed() }
          : { kind: 'closed', error, ms: elapsed() },
      );
    });
    // The server may answer (and close) before the whole request is written.
    socket.write(raw, () => undefined);
  });
}

/** One complete response from the start of `data`, or undefined while incomplete. */
function parse(data: Buffer, head: boolean, closed: boolean): RawResponse | undefined {
  let offset = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', offset);
    if (end < 0) return undefined;
    const lines = data.subarray(offset, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})/u.exec(lines[0] ?? '');
    if (!match) return closed ? { status: 0, headers: new Map(), body: data } : undefined;
    const status = Number(match[1]);
    const headers = new Map<string, string[]>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const list = headers.get(name) ?? [];
      list.push(line.slice(colon + 1).trim());
      headers.set(name, list);
    }
    const bodyStart = end + 4;
    if (status >= 100 && status < 200 && status !== 101) {
      offset = bodyStart;
      continue;
    }
    if (head || status === 204 || status === 304 || status === 101) {
      return { status, headers, body: Buffer.alloc(0) };
    }
    const rest = data.subarray(bodyStart);
    const encoding = headers.get('transfer-encoding')?.join(',').toLowerCase() ?? '';
    if (encoding.includes('chunked')) {
      const body = dechunk(rest);
      return body ? { status, headers, body } : undefined;
    }
    const length = headers.get('content-length')?.[0];
    if (length !== undefined) {
      const n = Number(length);
      return rest.length >= n ? { status, headers, body: rest.subarray(0, n) } : undefined;
    }
    return closed ? { status, headers, body: rest } : undefined;
  }
}

/** The body of a complete chunked message, or undefined while incomplete. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) return undefined;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) return Buffer.concat(parts);
    if (size === 0) {
      return data.indexOf('\r\n\r\n', lineEnd) >= 0 || data.length >= lineEnd + 4
        ? Buffer.concat(parts)
        : undefined;
    }
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    offset = start + size + 2;
  }
}
