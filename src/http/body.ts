/**
 * Bounded reading of request bodies, for node streams and Fetch requests alike: the
 * bytes, or `undefined` as soon as the body goes past the limit (reading stops there;
 * the rest is never read).
 *
 * @internal
 */
import type { Readable } from 'node:stream';
import type { BodyReader } from '../core/routes.js';

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
