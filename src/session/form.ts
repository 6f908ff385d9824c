import type { IncomingMessage } from 'node:http';
import { fetchBodyReader, nodeBodyReader } from '../http/body.js';

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
  if (source instanceof Request) {
    const declared = Number(source.headers.get('content-length') ?? '0');
    if (declared > max) return { status: 413 };
  }
  const read = source instanceof Request ? fetchBodyReader(source) : nodeBodyReader(source);
  const bytes = await read(max);
  if (bytes === undefined) return { status: 413 };
  const text = new TextDecoder().decode(bytes);
  const form = new URLSearchParams(text);
  const seen = new Set<string>();
  for (const key of form.keys()) {
    if (seen.has(key)) return { status: 400 };
    seen.add(key);
  }
  return { form };
}

function contentType(source: IncomingMessage | Request): string | undefined {
  const header =
    source instanceof Request ? source.headers.get('content-type') : source.headers['content-type'];
  return header?.split(';', 1)[0]?.trim().toLowerCase();
}
