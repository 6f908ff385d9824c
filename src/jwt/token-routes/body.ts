/**
 * Reading and parsing the bodies of the token endpoints: a bounded read that stops at
 * the limit, and a parse into string parameters that never reads inherited
 * properties.
 *
 * @internal
 */

/** The parameters of a token request, or the reason it is malformed. @internal */
export type ParsedBody =
  | { readonly params: ReadonlyMap<string, unknown> }
  | { readonly malformed: 'syntax' | 'not-object' | 'repeated' | 'encoding' };

/** The media types a token endpoint reads. @internal */
export type BodyType = 'json' | 'form';

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
