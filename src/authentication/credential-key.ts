import { createHmac, createSecretKey, randomBytes } from 'node:crypto';

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
  readonly #secret = createSecretKey(randomBytes(32));

  /** The key of a (username, password, stored hash) triple, as base64. */
  key(username: string, password: string, storedHash: string): string {
    // One buffer, one update: [len][username][len][password][len][storedHash].
    const input = Buffer.allocUnsafe(
      12 + 2 * (username.length + password.length + storedHash.length),
    );
    let at = 0;
    for (const part of [username, password, storedHash]) {
      input.writeUInt32BE(part.length * 2, at);
      at += 4 + input.write(part, at + 4, 'utf16le');
    }
    return createHmac('sha256', this.#secret).update(input).digest('base64');
  }
}
