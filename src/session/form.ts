import type { IncomingMessage } from 'node:http';

/** A parsed form, or the status to answer (400, 413, 415). @internal */
export type FormResult = { readonly form: URLSearchParams } | { readonly status: 400 | 413 | 415 };

/**
 * Reads an `application/x-www-form-urlencoded` body of at most `max` bytes. A
 * repeated field is refused (400): which copy wins would differ between layers.
 *
 * @internal
 */
export async function readForm(
  source: IncomingMessage | Request,
  max: number,
): Promise<FormResult> {
  const type = contentType(source);
  if (type !== 'application/x-www-form-urlencoded') return { status: 415 };
  let text: string;
  if (source instanceof Request) {
    const declared = Number(source.headers.get('content-length') ?? '0');
    if (declared > max) return { status: 413 };
    const bytes = await readAtMost(source, max);
    if (bytes === undefined) return { status: 413 };
    text = new TextDecoder().decode(bytes);
  } else {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of source as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) return { status: 413 };
      chunks.push(chunk);
    }
    text = Buffer.concat(chunks).toString('utf8');
  }
  const form = new URLSearchParams(text);
  const seen = new Set<string>();
  for (const key of form.keys()) {
    if (seen.has(key)) return { status: 400 };
    seen.add(key);
  }
  return { form };
}

/** The body of a Fetch request, or `undefined` past `max` bytes (reading stops there). */
async function readAtMost(request: Request, max: number): Promise<Uint8Array | undefined> {
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function contentType(source: IncomingMessage | Request): string | undefined {
  const header =
    source instanceof Request ? source.headers.get('content-type') : source.headers['content-type'];
  return header?.split(';', 1)[0]?.trim().toLowerCase();
}
