import { createHmac, randomBytes } from 'node:crypto';

/**
 * Derives cache and single-flight keys for a credential check: HMAC-SHA256, under a
 * random key made for this instance, of the username, the password and the stored
 * hash, each framed with its byte length so no two triples share an input. The key
 * reveals nothing of the password, and a changed stored hash gives another key.
 * Strings are framed as UTF-16 code units, which is injective even for strings
 * with lone surrogates (UTF-8 would map them all to U+FFFD).
 *
 * @internal
 */
export class CredentialKeyer {
  readonly #secret = randomBytes(32);

  /** The key of a (username, password, stored hash) triple, as base64. */
  key(username: string, password: string, storedHash: string): string {
    const hmac = createHmac('sha256', this.#secret);
    for (const part of [username, password, storedHash]) {
      const bytes = Buffer.from(part, 'utf16le');
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      hmac.update(length);
      hmac.update(bytes);
    }
    return hmac.digest('base64');
  }
}
