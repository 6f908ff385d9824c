import { describe, expect, it } from 'vitest';
import type { PasswordEncoder, RawPasswordOptions } from '../../src/password/index.js';
import { configurationError, encodingFailure, withHash } from './helpers.js';

/** Builds the encoder under test, with the raw-password options given (on fast parameters). */
export type PasswordEncoderFactory = (options?: RawPasswordOptions) => PasswordEncoder;

/** What sets one encoder apart in {@link passwordEncoderContract}. */
export interface PasswordEncoderTraits {
  /** What `encode('s3cret')` looks like. */
  readonly format: RegExp;
  /** Whether two encodings of one password differ (a fresh salt each time). */
  readonly salted: boolean;
  /** What `upgradeEncoding` says of a malformed or non-string stored value. */
  readonly upgradesMalformed: boolean;
  /** Stored values that must never match `s3cret` (nor anything else), and must not throw. */
  readonly malformed: readonly string[];
  /** Edits of a valid encoding of `s3cret`, for encoders that write PHC strings. */
  readonly edits?: PhcEdits;
}

/** A named change to a stored PHC string. */
export type PhcEdit = readonly [name: string, edit: (stored: string) => string];

/** Edits of a stored PHC string that must make it match nothing. */
export interface PhcEdits {
  /** Still well-formed (another salt, cost, digest…): no match, whatever `upgradeEncoding` says. */
  readonly tampered: readonly PhcEdit[];
  /** What `upgradeEncoding` says of every `tampered` hash, when it is the same for all. */
  readonly tamperedUpgrade?: boolean;
  /** No longer well-formed: no match, and `upgradeEncoding` asks to re-encode. */
  readonly malformed: readonly PhcEdit[];
  /**
   * Whether a shorter key of the same inputs is a prefix of the key (scrypt,
   * PBKDF2): then a key cut below the minimum length must not match.
   */
  readonly keyIsPrefix: boolean;
}

/** Non-strings a caller may pass through `as string`, or through untyped JavaScript. */
const NON_STRINGS: readonly unknown[] = [
  undefined,
  null,
  0,
  42,
  {},
  ['s3cret'],
  Buffer.from('s3cret'),
];

/** Lone surrogates, which UTF-8 would turn into U+FFFD. */
const LONE_SURROGATES = ['\uD800', '\uDFFF', '\uDC00', '\uDBFF', 'a\uD800', '\uD800x'];

/**
 * The behaviour every {@link PasswordEncoder} shares: round trips, near misses,
 * malformed and non-string stored values, the raw-password checks (length cap,
 * lone surrogates, non-strings) and the validation of `maxPasswordLength`.
 * Encoder-specific behaviour (formats, parameters, bounds) stays in each encoder's file.
 */
export function passwordEncoderContract(
  name: string,
  factory: PasswordEncoderFactory,
  traits: PasswordEncoderTraits,
): void {
  describe(`${name} (PasswordEncoder contract)`, () => {
    const encoder = factory();

    it(`encodes to its format and matches its own encodings${traits.salted ? ', with a fresh salt each time' : ''}`, async () => {
      const a = await encoder.encode('s3cret');
      const b = await encoder.encode('s3cret');
      expect(a).toMatch(traits.format);
      if (traits.salted) expect(a).not.toBe(b);
      else expect(a).toBe(b);
      expect(await encoder.matches('s3cret', a)).toBe(true);
      expect(await encoder.matches('s3cret', b)).toBe(true);
      expect(encoder.upgradeEncoding(a)).toBe(false);
    });

    it('matches no near miss of the password', async () => {
      const stored = await encoder.encode('s3cret');
      for (const wrong of ['s3creT', 'S3cret', 's3cret ', ' s3cret', 's3cre', 's3cret!', '']) {
        expect(await encoder.matches(wrong, stored)).toBe(false);
      }
      expect(await encoder.matches('s3cret', await encoder.encode(''))).toBe(false);
    });

    it('encodes and matches the empty password and non-ASCII passwords', async () => {
      for (const raw of ['', 'pässwörd', '🔒 密码', '😀', 'é', 'e\u0301']) {
        expect(await encoder.matches(raw, await encoder.encode(raw))).toBe(true);
      }
      expect(await encoder.matches('passwörd', await encoder.encode('pässwörd'))).toBe(false);
      expect(await encoder.matches('é', await encoder.encode('e\u0301'))).toBe(false);
    });

    if (traits.malformed.length > 0) {
      it.each(traits.malformed)('never matches the malformed stored value %j', async (stored) => {
        expect(await encoder.matches('s3cret', stored)).toBe(false);
        expect(await encoder.matches(stored, stored)).toBe(false);
        expect(encoder.upgradeEncoding(stored)).toBe(traits.upgradesMalformed);
      });
    }

    const edits = traits.edits;
    if (edits !== undefined) {
      const valid = encoder.encode('s3cret');
      const check = (upgrade: boolean | undefined) => async (_: string, edit: PhcEdit[1]) => {
        const changed = edit(await valid);
        expect(changed).not.toBe(await valid);
        expect(await encoder.matches('s3cret', changed)).toBe(false);
        if (upgrade !== undefined) expect(encoder.upgradeEncoding(changed)).toBe(upgrade);
      };
      it.each(edits.tampered)('never matches a hash with %s', check(edits.tamperedUpgrade));
      it.each(edits.malformed)('never matches, and upgrades, a hash with %s', check(true));

      if (edits.keyIsPrefix) {
        it('never matches a key cut to 12 bytes, although it is a prefix of the right key', async () => {
          const stored = await valid;
          const cut = (bytes: number) =>
            withHash(stored, (h) =>
              Buffer.from(h, 'base64').subarray(0, bytes).toString('base64').replace(/=+$/u, ''),
            );
          // control: the 16-byte prefix is itself a valid, matching hash
          expect(await encoder.matches('s3cret', cut(16))).toBe(true);
          expect(await encoder.matches('s3cret', cut(12))).toBe(false);
          expect(await encoder.matches('s3cret', cut(1))).toBe(false);
          expect(encoder.upgradeEncoding(cut(12))).toBe(true);
        });
      }
    }

    it('never matches non-string arguments, not even against their string form', async () => {
      const stored = await encoder.encode('s3cret');
      for (const bad of NON_STRINGS) {
        expect(await encoder.matches(bad as string, stored)).toBe(false);
        expect(await encoder.matches(bad as string, await encoder.encode(String(bad)))).toBe(false);
        expect(await encoder.matches('s3cret', bad as string)).toBe(false);
        expect(await encoder.matches(String(bad), bad as string)).toBe(false);
        expect(encoder.upgradeEncoding(bad as string)).toBe(traits.upgradesMalformed);
      }
    });

    it('refuses to encode a non-string (ERR_PASSWORD_MALFORMED)', async () => {
      for (const bad of NON_STRINGS) {
        const error = await encodingFailure(encoder.encode(bad as string));
        expect(error.code).toBe('ERR_PASSWORD_MALFORMED');
      }
    });

    it('caps the password length (4096 by default), without the password in the message', async () => {
      const longest = 'x'.repeat(4096);
      expect(await encoder.matches(longest, await encoder.encode(longest))).toBe(true);
      const error = await encodingFailure(encoder.encode('x'.repeat(4097)));
      expect(error.code).toBe('ERR_PASSWORD_TOO_LONG');
      expect(error.message).not.toContain('xxxx');
    });

    it('never matches a password over a configured cap, even if it is right', async () => {
      const stored = await encoder.encode('twelve chars');
      const capped = factory({ maxPasswordLength: 11 });
      expect(await encoder.matches('twelve chars', stored)).toBe(true);
      expect(await capped.matches('twelve chars', stored)).toBe(false);
      expect((await encodingFailure(capped.encode('twelve chars'))).code).toBe(
        'ERR_PASSWORD_TOO_LONG',
      );
      expect(await capped.matches('eleven char', await capped.encode('eleven char'))).toBe(true);
    });

    it('refuses lone surrogates, which UTF-8 would turn into U+FFFD', async () => {
      const replacement = await encoder.encode('\uFFFD');
      expect(await encoder.matches('\uFFFD', replacement)).toBe(true);
      for (const lone of LONE_SURROGATES) {
        expect(await encoder.matches(lone, replacement)).toBe(false);
        expect((await encodingFailure(encoder.encode(lone))).code).toBe('ERR_PASSWORD_MALFORMED');
      }
    });

    it.each([0, -1, 1.5, 2 ** 21, '11' as unknown as number])(
      'rejects the maxPasswordLength %j',
      (maxPasswordLength) => {
        expect(configurationError(() => factory({ maxPasswordLength }))).toMatchObject({
          code: 'ERR_INVALID_OPTION',
          option: 'maxPasswordLength',
        });
      },
    );
  });
}
