import { ConfigurationError } from '../core/errors.js';
import { securityEvents, type SecurityEvents } from '../core/events.js';
import { PasswordEncodingFailedError } from './errors.js';
import type { PasswordEncoder } from './password-encoder.js';

/** Options of {@link DelegatingPasswordEncoder}. */
export interface DelegatingPasswordEncoderOptions {
  /**
   * The encoders by id (`argon2`, `scrypt`, …), as an object or a `Map`; ids match
   * `[A-Za-z0-9@._-]{1,64}`.
   *
   * @defaultValue none
   */
  readonly encoders?:
    Readonly<Record<string, PasswordEncoder>> | ReadonlyMap<string, PasswordEncoder>;
  /** The id `encode` uses; must be one of `encoders`. @defaultValue none: `encode` throws */
  readonly defaultId?: string;
  /** Where `unknown-password-encoder` events go. @defaultValue securityEvents */
  readonly events?: SecurityEvents;
}

const ID = /^[A-Za-z0-9@._-]{1,64}$/u;

/**
 * Picks the encoder of a stored hash by its `{id}` prefix, as Spring Security's
 * `DelegatingPasswordEncoder` does: `encode` writes `{<default id>}<hash>`,
 * `matches` reads the prefix and asks that encoder, so stored hashes of several
 * algorithms can live side by side while users are migrated.
 *
 * Unlike some ports, a hash with an unknown or missing id **never matches** and is
 * never compared as plain text (there is no "default encoder for matches"); it is
 * reported as an `unknown-password-encoder` security event (without the hash). `{noop}`
 * hashes only match when a {@link NoOpPasswordEncoder} is registered under `noop`.
 *
 * Immutable: {@link DelegatingPasswordEncoder.withEncoder} and
 * {@link DelegatingPasswordEncoder.defaultEncoder} return a new encoder.
 * Comes from the core entry, `portcullis`; `createDelegatingPasswordEncoder()` in
 * `portcullis/argon2` gives the recommended set.
 *
 * @example
 * ```ts
 * import { DelegatingPasswordEncoder, Pbkdf2PasswordEncoder, ScryptPasswordEncoder } from 'portcullis';
 * const encoder = new DelegatingPasswordEncoder()
 *   .withEncoder('scrypt', new ScryptPasswordEncoder())
 *   .withEncoder('pbkdf2', new Pbkdf2PasswordEncoder())
 *   .defaultEncoder('scrypt');
 * await encoder.encode('s3cret'); // {scrypt}$scrypt$ln=17,r=8,p=1$…$…
 * // or: new DelegatingPasswordEncoder({ encoders: { scrypt, pbkdf2 }, defaultId: 'scrypt' })
 * ```
 */
export class DelegatingPasswordEncoder implements PasswordEncoder {
  readonly #encoders: ReadonlyMap<string, PasswordEncoder>;
  readonly #defaultId: string | undefined;
  readonly #events: SecurityEvents;

  constructor(options: DelegatingPasswordEncoderOptions = {}) {
    const encoders = new Map<string, PasswordEncoder>();
    const given: unknown = options.encoders ?? {};
    if (typeof given !== 'object' || given === null) {
      throw new ConfigurationError('encoders', 'must be an object or a Map of encoders by id');
    }
    const entries: Iterable<[unknown, unknown]> =
      given instanceof Map ? given : Object.entries(given);
    for (const [id, encoder] of entries) {
      const key = requireId('encoders', id);
      encoders.set(key, requireEncoder(`encoders.${key}`, encoder));
    }
    this.#encoders = encoders;
    if (options.defaultId !== undefined) {
      requireRegistered('defaultId', options.defaultId, encoders);
    }
    this.#defaultId = options.defaultId;
    const events: unknown = options.events ?? securityEvents;
    if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
      throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
    }
    this.#events = events as SecurityEvents;
  }

  /** A new encoder that also knows `encoder` under `id`; the id must not be registered yet. */
  withEncoder(id: string, encoder: PasswordEncoder): DelegatingPasswordEncoder {
    requireId('id', id);
    if (this.#encoders.has(id)) {
      throw new ConfigurationError('id', `an encoder is already registered as ${id}`);
    }
    return this.#copy(new Map(this.#encoders).set(id, requireEncoder('encoder', encoder)));
  }

  /** A new encoder that encodes with the encoder registered under `id`. */
  defaultEncoder(id: string): DelegatingPasswordEncoder {
    requireRegistered('id', id, this.#encoders);
    return this.#copy(this.#encoders, id);
  }

  /** The ids of the registered encoders. */
  get ids(): readonly string[] {
    return [...this.#encoders.keys()];
  }

  /** The id `encode` uses, or `undefined` when none is set. */
  get defaultId(): string | undefined {
    return this.#defaultId;
  }

  /**
   * Encodes with the default encoder and prefixes its id: `{argon2}$argon2id$…`.
   * Throws a {@link PasswordEncodingFailedError} (`ERR_PASSWORD_NO_DEFAULT_ENCODER`) when no
   * default id was set.
   */
  async encode(raw: string): Promise<string> {
    const id = this.#defaultId;
    const encoder = id === undefined ? undefined : this.#encoders.get(id);
    if (id === undefined || !encoder) {
      throw new PasswordEncodingFailedError(
        'ERR_PASSWORD_NO_DEFAULT_ENCODER',
        'No default password encoder is set (call defaultEncoder(id))',
      );
    }
    return `{${id}}${await encoder.encode(raw)}`;
  }

  /**
   * Asks the encoder named by the `{id}` prefix. A missing, malformed or unknown
   * id gives `false` (never a plain-text comparison) and publishes an
   * `unknown-password-encoder` event. An error thrown by a delegate (none of
   * portcullis' encoders throws here) propagates.
   */
  async matches(raw: string, encoded: string): Promise<boolean> {
    if (typeof raw !== 'string' || typeof encoded !== 'string') return false;
    const stored = splitId(encoded);
    const encoder = stored && this.#encoders.get(stored.id);
    if (!stored || !encoder) {
      this.#reportUnknown(stored?.id);
      return false;
    }
    return encoder.matches(raw, stored.hash);
  }

  /**
   * `true` when the stored hash has no known id, another id than the default, or
   * its encoder asks for an upgrade; `false` when no default id is set (there is
   * nothing to upgrade to).
   */
  upgradeEncoding(encoded: string): boolean {
    if (this.#defaultId === undefined) return false;
    const stored = typeof encoded === 'string' ? splitId(encoded) : undefined;
    const encoder = stored && this.#encoders.get(stored.id);
    if (!stored || !encoder || stored.id !== this.#defaultId) return true;
    return encoder.upgradeEncoding(stored.hash);
  }

  #copy(encoders: ReadonlyMap<string, PasswordEncoder>, defaultId = this.#defaultId) {
    return new DelegatingPasswordEncoder({
      encoders,
      ...(defaultId === undefined ? {} : { defaultId }),
      events: this.#events,
    });
  }

  #reportUnknown(id: string | undefined): void {
    try {
      // Only text of the id grammar (1 to 64 of [A-Za-z0-9@._-]) is reported, never
      // the rest of the stored value.
      this.#events.publish({
        type: 'unknown-password-encoder',
        id: id !== undefined && ID.test(id) ? id : null,
      });
    } catch {
      // A publisher must never break authentication.
    }
  }
}

/** Splits `{id}hash`; `undefined` unless the value starts with a `{…}` prefix. */
function splitId(encoded: string): { id: string; hash: string } | undefined {
  if (!encoded.startsWith('{')) return undefined;
  const end = encoded.indexOf('}');
  if (end < 0) return undefined;
  return { id: encoded.slice(1, end), hash: encoded.slice(end + 1) };
}

function requireId(option: string, id: unknown): string {
  if (typeof id !== 'string' || !ID.test(id)) {
    throw new ConfigurationError(option, 'an encoder id must match [A-Za-z0-9@._-]{1,64}');
  }
  return id;
}

function requireEncoder(option: string, encoder: unknown): PasswordEncoder {
  const candidate = encoder as Partial<PasswordEncoder> | null | undefined;
  if (
    typeof candidate?.encode !== 'function' ||
    typeof candidate.matches !== 'function' ||
    typeof candidate.upgradeEncoding !== 'function'
  ) {
    throw new ConfigurationError(option, 'must be a PasswordEncoder');
  }
  return candidate as PasswordEncoder;
}

function requireRegistered(option: string, id: unknown, encoders: ReadonlyMap<string, unknown>) {
  if (typeof id !== 'string' || !encoders.has(id)) {
    throw new ConfigurationError(option, 'must be the id of a registered encoder');
  }
}
