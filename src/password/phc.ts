/**
 * Strict reading and writing of PHC strings
 * (`$<id>[$v=<version>]$<param>=<value>,…$<salt>$<hash>`, the format of the
 * Password Hashing Competition, with unpadded standard base64). Anything that does
 * not follow the grammar exactly is rejected, so one stored string has one meaning.
 *
 * @internal
 */
import { timingSafeEqual } from 'node:crypto';

/** Longer stored strings are rejected before any parsing. */
export const MAX_PHC_LENGTH = 1024;

const B64 = /^[A-Za-z0-9+/]+$/;
const ID = /^[a-z0-9-]{1,32}$/;
const PARAM_NAME = /^[a-z0-9-]{1,32}$/;
const DECIMAL = /^(?:0|[1-9][0-9]{0,14})$/;

/** A parsed PHC string. @internal */
export interface PhcString {
  readonly id: string;
  /** The `v=` field, or `undefined` when absent. */
  readonly version: number | undefined;
  /** Parameter names in order, with their raw values. */
  readonly params: readonly (readonly [string, string])[];
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/** Unpadded standard base64, as PHC strings use. @internal */
export function encodeB64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('base64')
    .replace(/=+$/u, '');
}

/**
 * Decodes unpadded standard base64, or `undefined` unless the text is its
 * canonical encoding (no padding, no other alphabet, no stray bits). @internal
 */
export function decodeB64(text: string): Buffer | undefined {
  if (!B64.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return encodeB64(bytes) === text ? bytes : undefined;
}

/** A non-negative decimal without leading zeros, or `undefined`. @internal */
export function parseDecimal(text: string | undefined): number | undefined {
  return text !== undefined && DECIMAL.test(text) ? Number(text) : undefined;
}

/** Parses a PHC string with a salt and a hash, or gives `undefined`. @internal */
export function parsePhc(encoded: unknown): PhcString | undefined {
  if (typeof encoded !== 'string' || encoded.length > MAX_PHC_LENGTH) return undefined;
  const fields = encoded.split('$');
  if (fields[0] !== '' || fields.length < 5 || fields.length > 6) return undefined;
  const id = fields[1] ?? '';
  if (!ID.test(id)) return undefined;
  let version: number | undefined;
  let next = 2;
  if (fields.length === 6) {
    const field = fields[2] ?? '';
    if (!field.startsWith('v=')) return undefined;
    version = parseDecimal(field.slice(2));
    if (version === undefined) return undefined;
    next = 3;
  }
  const params = parseParams(fields[next] ?? '');
  const salt = decodeB64(fields[next + 1] ?? '');
  const hash = decodeB64(fields[next + 2] ?? '');
  if (!params || !salt || !hash) return undefined;
  return { id, version, params, salt, hash };
}

function parseParams(field: string): (readonly [string, string])[] | undefined {
  const params: (readonly [string, string])[] = [];
  for (const pair of field.split(',')) {
    const equals = pair.indexOf('=');
    const name = pair.slice(0, equals);
    const value = pair.slice(equals + 1);
    if (equals < 0 || !PARAM_NAME.test(name) || value === '') return undefined;
    params.push([name, value]);
  }
  return params;
}

/**
 * The decimal values of exactly the named parameters, in this order, or
 * `undefined` when a name is missing, extra, out of order or not a decimal. @internal
 */
export function decimalParams(phc: PhcString, names: readonly string[]): number[] | undefined {
  if (phc.params.length !== names.length) return undefined;
  const values: number[] = [];
  for (const [index, name] of names.entries()) {
    const param = phc.params[index];
    const value = parseDecimal(param?.[1]);
    if (param?.[0] !== name || value === undefined) return undefined;
    values.push(value);
  }
  return values;
}

/** Formats a PHC string, with a `v=` field when `version` is given. @internal */
export function formatPhc(
  id: string,
  params: readonly (readonly [string, number])[],
  salt: Uint8Array,
  hash: Uint8Array,
  version?: number,
): string {
  const head = version === undefined ? `$${id}` : `$${id}$v=${version}`;
  const fields = params.map(([name, value]) => `${name}=${value}`).join(',');
  return `${head}$${fields}$${encodeB64(salt)}$${encodeB64(hash)}`;
}

/**
 * The decimal values of exactly the named parameters, each once, in any order
 * (the `argon2` package writes `m,p,t` where the reference writes `m,t,p`), or
 * `undefined` when a name is missing, extra, repeated or not a decimal. @internal
 */
export function decimalParamSet(
  phc: PhcString,
  names: readonly string[],
): Map<string, number> | undefined {
  if (phc.params.length !== names.length) return undefined;
  const values = new Map<string, number>();
  for (const [name, text] of phc.params) {
    const value = parseDecimal(text);
    if (!names.includes(name) || values.has(name) || value === undefined) return undefined;
    values.set(name, value);
  }
  return values;
}

/**
 * Whether the key `derive` gives equals `expected`, compared in constant time;
 * `false` when derivation fails (parameters out of the runtime's range).
 *
 * @internal
 */
export async function derivedKeyMatches(
  expected: Buffer,
  derive: () => Promise<Buffer>,
): Promise<boolean> {
  try {
    return timingSafeEqual(await derive(), expected);
  } catch {
    return false;
  }
}
