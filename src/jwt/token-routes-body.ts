/**
 * Reading and parsing the bodies of the token endpoints: a bounded read that stops at
 * the limit, and a parse into string parameters that never reads inherited
 * properties.
 *
 * @internal
 */
import type { Readable } from 'node:stream';

/**
 * Reads a request body of at most `maxBytes`: the bytes, or `undefined` as soon as the
 * body goes past the limit (reading stops there; the rest is never read).
 */
export type BodyReader = (maxBytes: number) => Promise<Uint8Array | undefined>;

/** The parameters of a token request, or the reason it is malformed. @internal */
export type ParsedBody =
  | { readonly params: ReadonlyMap<string, unknown> }
  | { readonly malformed: 'syntax' | 'not-object' | 'repeated' | 'encoding' };

/** The media types a token endpoint reads. @internal */
export type BodyType = 'json' | 'form';

/**
 * The {@link BodyReader} of a node request stream (`IncomingMessage`, Fastify's
 * payload). Past the limit the stream is paused, not destroyed, so the answer (413,
 * `Connection: close`) still goes out on the socket; the rest is never read.
 */
export function nodeBodyReader(stream: Readable | undefined): BodyReader {
  return (maxBytes) =>
    new Promise((resolve, reject) => {
      if (stream === undefined || stream.readableEnded) {
        resolve(new Uint8Array(0));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const stop = (): void => {
        stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      };
      const onData = (chunk: Buffer | string): void => {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        size += bytes.length;
        if (size > maxBytes) {
          stop();
          stream.pause();
          resolve(undefined);
          return;
        }
        chunks.push(bytes);
      };
      const onEnd = (): void => {
        stop();
        resolve(Buffer.concat(chunks));
      };
      const onError = (error: unknown): void => {
        stop();
        reject(error instanceof Error ? error : new Error('The request body could not be read'));
      };
      const onClose = (): void => {
        onError(new Error('The client went away before the end of the body'));
      };
      stream.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
      stream.resume(); // flowing even if something paused it before
    });
}

/** The {@link BodyReader} of a Fetch `Request`: cancels the stream past the limit. */
export function fetchBodyReader(request: Request): BodyReader {
  return async (maxBytes) => {
    if (request.body === null) return new Uint8Array(0);
    const reader = request.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return undefined;
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks);
  };
}

/** The body type of a `Content-Type` value, or `undefined` when it is another one. */
export function bodyTypeOf(header: string | undefined, formBodies: boolean): BodyType | undefined {
  const type = header?.split(';', 1)[0]?.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (formBodies && type === 'application/x-www-form-urlencoded') return 'form';
  return undefined;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a JSON object or a form into its parameters. JSON: an object (not an array,
 * not `null`), own properties only (`{"__proto__": …}` is just a key of that name,
 * never a prototype). Form: a repeated parameter is malformed (RFC 6749 §3.2).
 */
export function parseBody(bytes: Uint8Array, type: BodyType): ParsedBody {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { malformed: 'encoding' };
  }
  const params = new Map<string, unknown>();
  if (type === 'form') {
    for (const [key, value] of new URLSearchParams(text)) {
      if (params.has(key)) return { malformed: 'repeated' };
      params.set(key, value);
    }
    return { params };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { malformed: 'syntax' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { malformed: 'not-object' };
  }
  for (const key of Object.keys(body)) {
    params.set(key, (body as Record<string, unknown>)[key]);
  }
  return { params };
}
