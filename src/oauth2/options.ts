import { ConfigurationError } from '../core/errors.js';
import { requireOptionsObject } from '../core/validate.js';

/** Refuses anything but a plain object, and unknown keys (with a "did you mean"). @internal */
export function checkKeys(owner: string, options: unknown, known: readonly string[]): void {
  requireOptionsObject(owner, owner, options, known);
}

/** RFC 6749 §3.3 `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/u;

/** A frozen list of distinct scope tokens (RFC 6749 §3.3). @internal */
export function requireScopes(
  option: string,
  scopes: unknown,
  allowEmpty = false,
): readonly string[] {
  if (!Array.isArray(scopes) || (!allowEmpty && scopes.length === 0)) {
    throw new ConfigurationError(option, 'must be a non-empty array of scope names');
  }
  const list: string[] = [];
  for (const scope of scopes as unknown[]) {
    if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope)) {
      throw new ConfigurationError(
        option,
        'each scope must be a non-empty token without spaces, quotes or backslashes',
      );
    }
    if (!list.includes(scope)) list.push(scope);
  }
  return Object.freeze(list);
}
