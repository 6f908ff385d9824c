import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBasicCredentials } from '../../src/authentication/http-basic.js';

// Properties of the HTTP Basic parser (RFC 7617): what any client can send.

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/u;
/** Strings whose UTF-8 round-trips (no lone surrogates). */
const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const username = text.filter((u) => u !== '' && !u.includes(':') && !CONTROL.test(u));
const encode = (value: string): string => Buffer.from(value, 'utf8').toString('base64');
const whitespace = fc.stringMatching(/^[ \t]{0,3}$/u);

describe('parseBasicCredentials', () => {
  it('round-trips any username and password, whatever the scheme case and surrounding whitespace', () => {
    fc.assert(
      fc.property(
        username,
        text,
        fc.constantFrom('Basic', 'basic', 'BASIC', 'bAsIc'),
        whitespace,
        whitespace,
        (user, password, scheme, before, after) => {
          const header = `${before}${scheme} ${encode(`${user}:${password}`)}${after}`;
          expect(parseBasicCredentials(header)).toEqual({ ok: true, username: user, password });
        },
      ),
    );
  });

  it('never throws, whatever the header value', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.anything()), (value) => {
        parseBasicCredentials(value);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        parseBasicCredentials(`Basic ${value}`);
      }),
    );
  });

  it('accepts one spelling only: what it accepts is the canonical base64 of what it returns', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({
            unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPabcdefghijklmnop0123456789+/= \t'.split('')),
          }),
          fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes).toString('base64')),
        ),
        (token) => {
          const result = parseBasicCredentials(`Basic ${token}`);
          if (result?.ok === true) {
            expect(encode(`${result.username}:${result.password}`)).toBe(
              token.replace(/[ \t]+$/u, ''),
            );
          }
        },
      ),
    );
  });

  it('refuses a valid credential with garbage inserted: whitespace, padding, another alphabet', () => {
    fc.assert(
      fc.property(
        username,
        text,
        fc.constantFrom(' ', '\t', '=', '-', '_', '.', '%', '\u00a0', '\n', ':'),
        fc.nat(),
        (user, password, garbage, position) => {
          const token = encode(`${user}:${password}`);
          const at = 1 + (position % Math.max(1, token.length - 1));
          fc.pre(at < token.length);
          const result = parseBasicCredentials(
            `Basic ${token.slice(0, at)}${garbage}${token.slice(at)}`,
          );
          expect(result).toEqual({ ok: false, reason: 'malformed-credentials' });
        },
      ),
    );
  });

  it('ignores other schemes: null, never a credential', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (rest) => {
        fc.pre(!/^[ \t]*basic(?:$|[ \t])/iu.test(rest));
        expect(parseBasicCredentials(rest)).toBeNull();
      }),
    );
  });
});
