import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePath, normalizePath, parseCookies } from '../../src/core/request.js';

// Properties of the request parsers every rule relies on: cookies and paths.

/** RFC 6265 cookie-name: a token (RFC 9110 tchar). */
const cookieName = fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,12}$/u);
/** RFC 6265 cookie-octet, without `%` so the value is taken as it is. */
const cookieValue = fc.stringMatching(/^[!#$&'()*+\-./0-9:<=>?@A-Z[\]^_`a-z{|}~]{0,20}$/u);

describe('parseCookies', () => {
  it('never throws, whatever the header', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ unit: 'binary' }), { nil: undefined }), (header) => {
        parseCookies(header);
      }),
    );
  });

  it('reads every pair, and of a name sent twice the first value wins', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(cookieName, cookieValue), { minLength: 1, maxLength: 8 }),
        fc.constantFrom('; ', ';', ' ;  '),
        (pairs, separator) => {
          const cookies = parseCookies(pairs.map(([n, v]) => `${n}=${v}`).join(separator));
          const first = new Map<string, string>();
          for (const [name, value] of pairs) if (!first.has(name)) first.set(name, value);
          expect(new Map(cookies)).toEqual(first);
        },
      ),
    );
  });

  it('takes a quoted value without its quotes, and a percent-encoded one decoded', () => {
    fc.assert(
      fc.property(cookieName, fc.string({ unit: 'grapheme', maxLength: 20 }), (name, value) => {
        expect(parseCookies(`${name}="${encodeURIComponent(value)}"`).get(name)).toBe(value);
      }),
    );
  });
});

/** Paths made of slashes, dots, backslashes, escapes and letters: where the tricks are. */
const trickyPath = fc
  .array(
    fc.constantFrom(
      '/',
      '/',
      '.',
      '..',
      '\\',
      '%2e',
      '%2f',
      '%2F',
      '%5c',
      '%25',
      '%',
      'a',
      'b',
      '%c3%a9',
      '%ff',
      ';',
      '~',
    ),
    { maxLength: 16 },
  )
  .map((parts) => parts.join(''));
const anyPath = fc.oneof(trickyPath, fc.string({ unit: 'binary', maxLength: 40 }));

const DOT_SEGMENT = /(?:^|\/)\.{1,2}(?:\/|$)/u;

describe('decodePath and normalizePath', () => {
  it('never throw, whatever the path', () => {
    fc.assert(
      fc.property(anyPath, (path) => {
        normalizePath(decodePath(path));
        normalizePath(path);
      }),
    );
  });

  it('normalizePath gives an absolute path without empty or dot segments or backslashes', () => {
    fc.assert(
      fc.property(anyPath, (path) => {
        const normal = normalizePath(decodePath(path));
        expect(normal.startsWith('/')).toBe(true);
        expect(normal).not.toContain('//');
        expect(normal).not.toContain('\\');
        expect(DOT_SEGMENT.test(normal), normal).toBe(false);
      }),
    );
  });

  it('normalizePath is idempotent, and so is the whole of decode then normalize on its result', () => {
    fc.assert(
      fc.property(anyPath, (path) => {
        const once = normalizePath(decodePath(path));
        expect(normalizePath(once)).toBe(once);
        expect(normalizePath(normalizePath(path))).toBe(normalizePath(path));
      }),
    );
  });

  it('decodePath decodes what encodeURIComponent encoded, segment by segment', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 10 }), { maxLength: 5 }),
        (segments) => {
          const raw = `/${segments.map(encodeURIComponent).join('/')}`;
          expect(decodePath(raw)).toBe(`/${segments.join('/')}`);
        },
      ),
    );
  });
});
