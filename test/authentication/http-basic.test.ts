import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_BASIC_HEADER_LENGTH,
  parseBasicCredentials,
} from '../../src/authentication/index.js';
import { basic, basicBytes } from './helpers.js';

const MALFORMED = { ok: false, reason: 'malformed-credentials' };

describe('parseBasicCredentials', () => {
  it('decodes the RFC 7617 example', () => {
    expect(parseBasicCredentials('Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==')).toEqual({
      ok: true,
      username: 'Aladdin',
      password: 'open sesame',
    });
  });

  it.each(['basic', 'BASIC', 'bAsIc'])('accepts the scheme in any case (%s)', (scheme) => {
    expect(parseBasicCredentials(`${scheme} YTpi`)).toEqual({
      ok: true,
      username: 'a',
      password: 'b',
    });
  });

  it('tolerates several spaces or tabs around the token', () => {
    expect(parseBasicCredentials('Basic   YTpi')).toMatchObject({ ok: true, username: 'a' });
    expect(parseBasicCredentials('Basic\tYTpi\t ')).toMatchObject({ ok: true, username: 'a' });
    expect(parseBasicCredentials('  Basic YTpi')).toMatchObject({ ok: true, username: 'a' });
  });

  it('splits at the first colon: the password may contain colons', () => {
    expect(parseBasicCredentials(basic('user', 'p:a:ss'))).toEqual({
      ok: true,
      username: 'user',
      password: 'p:a:ss',
    });
  });

  it('accepts an empty password', () => {
    expect(parseBasicCredentials(basic('user', ''))).toEqual({
      ok: true,
      username: 'user',
      password: '',
    });
  });

  it('decodes UTF-8 without normalizing it', () => {
    const nfd = 'Jose\u0301';
    const parsed = parseBasicCredentials(basic(nfd, 'mot de passe é'));
    expect(parsed).toEqual({ ok: true, username: nfd, password: 'mot de passe é' });
    expect(parsed).not.toEqual(expect.objectContaining({ username: nfd.normalize('NFC') }));
  });

  it('keeps a leading byte-order mark instead of silently dropping it', () => {
    const parsed = parseBasicCredentials(basicBytes([0xef, 0xbb, 0xbf, 0x61, 0x3a, 0x62]));
    expect(parsed).toEqual({ ok: true, username: '\ufeffa', password: 'b' });
  });

  describe('is not concerned (null, no failure) by', () => {
    it.each([
      ['no header', undefined],
      ['a null header', null],
      ['an empty header', ''],
      ['a Bearer token', 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig'],
      ['a scheme that only starts with basic', 'Basicx YTpi'],
      ['a Digest header', 'Digest username="a"'],
    ])('%s', (_name, value) => {
      expect(parseBasicCredentials(value)).toBeNull();
    });
  });

  describe('refuses as malformed', () => {
    it.each([
      ['a token of non-base64 characters', 'Basic !!!'],
      ['too much padding', 'Basic YWxhZGRpbjpvcGVuc2VzYW1l====='],
      ['padding on a token that needs none', 'Basic YWxhZGRpbjpvcGVuc2VzYW1l='],
      ['a missing token', 'Basic'],
      ['an empty token', 'Basic '],
      ['only whitespace', 'Basic  \t '],
      ['unpadded base64', 'Basic YTpiYw'],
      ['base64url characters', 'Basic YTpi-_8='],
      ['whitespace inside the token', 'Basic YTpi YTpi'],
      ['a token followed by auth-params', 'Basic YTpi, realm="x"'],
      ['two Authorization headers joined by a comma', `${basic('a', 'b')}, ${basic('c', 'd')}`],
      ['garbage after valid base64', 'Basic YTpi\u0000'],
      ['non-zero padding bits', 'Basic YTq='],
      ['a non-canonical final character', 'Basic YR=='],
      ['a quoted token', 'Basic "YTpi"'],
    ])('%s', (_name, value) => {
      expect(parseBasicCredentials(value)).toEqual(MALFORMED);
    });

    it('credentials without a colon', () => {
      expect(parseBasicCredentials(`Basic ${Buffer.from('aladdin').toString('base64')}`)).toEqual(
        MALFORMED,
      );
    });

    it('an empty username', () => {
      expect(parseBasicCredentials(basic('', 'secret'))).toEqual(MALFORMED);
    });

    it.each([
      ['NUL', 'a\u0000b'],
      ['CR LF', 'admin\r\nX-Injected: 1'],
      ['TAB', 'a\tb'],
      ['DEL', 'a\u007f'],
      ['ESC', '\u001b[31madmin'],
    ])('a username with a control character (%s)', (_name, username) => {
      expect(parseBasicCredentials(basic(username, 'pw'))).toEqual(MALFORMED);
    });

    it.each([
      ['a lone continuation byte', [0x61, 0x80, 0x3a, 0x62]],
      ['a truncated sequence', [0x61, 0xc3, 0x3a, 0x62]],
      ['an overlong encoding of ":"', [0x61, 0xc0, 0xba, 0x62]],
      ['an encoded surrogate', [0xed, 0xa0, 0x80, 0x3a, 0x62]],
      ['Latin-1 (not UTF-8)', [0x6a, 0xf6, 0x72, 0x67, 0x3a, 0x62]],
      ['invalid bytes in the password', [0x61, 0x3a, 0xff]],
    ])('invalid UTF-8: %s', (_name, bytes) => {
      expect(parseBasicCredentials(basicBytes(bytes))).toEqual(MALFORMED);
    });

    it.each([
      ['an array', ['Basic YTpi']],
      ['a number', 42],
      ['an object', { toString: () => 'Basic YTpi' }],
    ])('a header value that is not a string (%s)', (_name, value) => {
      expect(parseBasicCredentials(value)).toEqual(MALFORMED);
    });
  });

  describe('size limit', () => {
    it('refuses a header longer than 8 KiB by default', () => {
      const header = basic('u', 'x'.repeat(7000));
      expect(header.length).toBeGreaterThan(DEFAULT_MAX_BASIC_HEADER_LENGTH);
      expect(parseBasicCredentials(header)).toEqual({ ok: false, reason: 'credentials-too-large' });
    });

    it('accepts a header of exactly the limit, and not one character more', () => {
      const header = basic('u', 'x'.repeat(6000)).padEnd(DEFAULT_MAX_BASIC_HEADER_LENGTH, ' ');
      expect(header.length).toBe(DEFAULT_MAX_BASIC_HEADER_LENGTH);
      expect(parseBasicCredentials(header)).toMatchObject({ ok: true, username: 'u' });
      expect(parseBasicCredentials(`${header} `)).toEqual({
        ok: false,
        reason: 'credentials-too-large',
      });
    });

    it('checks the size before decoding, even of garbage', () => {
      expect(parseBasicCredentials(`Basic ${'!'.repeat(10_000)}`)).toEqual({
        ok: false,
        reason: 'credentials-too-large',
      });
    });

    it('honours a configured maxHeaderLength', () => {
      const header = basic('user', 'password');
      expect(parseBasicCredentials(header, { maxHeaderLength: header.length })).toMatchObject({
        ok: true,
      });
      expect(parseBasicCredentials(header, { maxHeaderLength: header.length - 1 })).toEqual({
        ok: false,
        reason: 'credentials-too-large',
      });
    });

    it('leaves a large header of another scheme alone', () => {
      expect(parseBasicCredentials(`Bearer ${'a'.repeat(20_000)}`)).toBeNull();
    });

    it('refuses a long whitespace run followed by garbage', () => {
      expect(parseBasicCredentials(`Basic ${' \t'.repeat(4000)}x`)).toEqual(MALFORMED);
    });
  });
});
