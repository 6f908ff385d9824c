import type { SecurityRequest } from '../core/request.js';
import type { BodyReader } from '../core/routes.js';

/** A parsed form, or the status to answer (400, 413, 415). @internal */
export type FormResult = { readonly form: URLSearchParams } | { readonly status: 400 | 413 | 415 };

/**
 * Reads an `application/x-www-form-urlencoded` body of at most `max` bytes (a body
 * declared larger is refused before any of it is read). A repeated field is refused
 * (400): which copy wins would differ between layers.
 *
 * @internal
 */
export async function readForm(
  request: SecurityRequest,
  readBody: BodyReader,
  max: number,
): Promise<FormResult> {
  const type = request.header('content-type')?.split(';', 1)[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return { status: 415 };
  if (Number(request.header('content-length') ?? '0') > max) return { status: 413 };
  const bytes = await readBody(max);
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
