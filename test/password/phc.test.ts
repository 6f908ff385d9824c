import { describe, expect, it } from 'vitest';
import {
  decimalParamSet,
  decimalParams,
  decodeB64,
  encodeB64,
  formatPhc,
  parsePhc,
} from '../../src/password/phc.js';

describe('PHC strings', () => {
  it('round-trips through formatPhc and parsePhc', () => {
    const salt = Buffer.from('0123456789abcdef');
    const hash = Buffer.alloc(32, 7);
    const text = formatPhc(
      'x-id',
      [
        ['a', 1],
        ['b', 0],
      ],
      salt,
      hash,
      19,
    );
    expect(text).toBe(`$x-id$v=19$a=1,b=0$${encodeB64(salt)}$${encodeB64(hash)}`);
    const phc = parsePhc(text)!;
    expect(phc.id).toBe('x-id');
    expect(phc.version).toBe(19);
    expect(decimalParams(phc, ['a', 'b'])).toEqual([1, 0]);
    expect(decimalParams(phc, ['b', 'a'])).toBeUndefined();
    expect(decimalParamSet(phc, ['b', 'a'])).toEqual(
      new Map([
        ['a', 1],
        ['b', 0],
      ]),
    );
    expect(phc.salt.equals(salt) && phc.hash.equals(hash)).toBe(true);
  });

  it.each(['', 'QQ==', 'QQ=', 'QR', 'Q', 'QUJD\n', 'QUJ-', 'QU_D', ' QUJD', 'QUJD '])(
    'decodeB64 refuses the non-canonical %j',
    (text) => {
      expect(decodeB64(text)).toBeUndefined();
    },
  );

  it('decodeB64 accepts canonical unpadded base64', () => {
    expect(decodeB64('QQ')?.toString()).toBe('A');
    expect(decodeB64('QUI')?.toString()).toBe('AB');
    expect(decodeB64('QUJD')?.toString()).toBe('ABC');
    expect(decodeB64('+/+/')).toEqual(Buffer.from([0xfb, 0xff, 0xbf]));
  });

  it.each([
    '$x$a=1$QUJD',
    '$x$a=1$QUJD$QUJD$QUJD',
    '$x$v=1$v=1$a=1$QUJD$QUJD',
    '$x$w=1$a=1$QUJD$QUJD',
    'x$a=1$QUJD$QUJD',
    '$X$a=1$QUJD$QUJD',
    '$x$a=1,$QUJD$QUJD',
    '$x$a$QUJD$QUJD',
    '$x$=1$QUJD$QUJD',
    '$x$a=$QUJD$QUJD',
    '$x$$QUJD$QUJD',
    '$x$v=01$a=1$QUJD$QUJD',
    `$x$a=1$QUJD$${'QUJD'.repeat(300)}`,
  ])('parsePhc refuses %j', (text) => {
    expect(parsePhc(text)).toBeUndefined();
  });

  it('reads decimals strictly', () => {
    const params = (value: string) => decimalParams(parsePhc(`$x$a=${value}$QUJD$QUJD`)!, ['a']);
    expect(params('0')).toEqual([0]);
    expect(params('123456789012345')).toEqual([123456789012345]);
    for (const bad of ['01', '-1', '+1', '1.0', '1e3', '0x10', '1234567890123456', ' 1']) {
      expect(params(bad)).toBeUndefined();
    }
  });
});
