import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { isCompactJws } from '../../src/jwt/compact.js';
import { JwtAuthenticator, JwtConfig } from '../../src/jwt/index.js';
import { NOW, SECRET, claimsAt, requestWith, sign } from '../jwt/support.js';

// Properties of the bearer token syntax: one spelling per token (issue 15, defect 7).

const segment = (min: number) =>
  fc.uint8Array({ minLength: min, maxLength: 48 }).map((b) => Buffer.from(b).toString('base64url'));

describe('isCompactJws', () => {
  it('accepts every token made of base64url-encoded bytes', () => {
    fc.assert(
      fc.property(segment(1), segment(1), segment(0), (h, p, s) => {
        expect(isCompactJws(`${h}.${p}.${s}`)).toBe(true);
      }),
    );
  });

  it('accepts only canonical segments: each decodes and re-encodes to itself', () => {
    const unit = fc.constantFrom(...'AaBbQgw019-_.=+/ \t'.split(''));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 60 }), (token) => {
        if (!isCompactJws(token)) return;
        const parts = token.split('.');
        expect(parts).toHaveLength(3);
        for (const part of parts)
          expect(Buffer.from(part, 'base64url').toString('base64url')).toBe(part);
      }),
    );
  });

  it('never throws, whatever the string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (token) => {
        isCompactJws(token);
      }),
    );
  });
});

describe('the bearer header', () => {
  let token: string;
  let jwt: JwtAuthenticator;
  beforeAll(async () => {
    token = await sign(SECRET, claimsAt());
    jwt = new JwtAuthenticator(new JwtConfig(SECRET).clock(() => NOW));
  });

  it('never throws, and authenticates only `Bearer 1*SP <the token>` with trailing whitespace', async () => {
    const around = fc.string({
      unit: fc.constantFrom(' ', '\t', '\u00a0', 'a', '.', '=', ','),
      maxLength: 3,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Bearer,', ''),
        around,
        around,
        fc.boolean(),
        async (scheme, before, after, real) => {
          const credential = real ? token : token.slice(1);
          const header = `${scheme} ${before}${credential}${after}`;
          const user = await jwt.authenticate(requestWith({ authorization: header }));
          const canonical =
            real &&
            scheme.toLowerCase() === 'bearer' &&
            /^ *$/u.test(before) &&
            /^[ \t]*$/u.test(after);
          expect(user?.username, JSON.stringify(header)).toBe(canonical ? 'alice' : undefined);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws on any header value', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 300 }), async (value) => {
        await jwt.authenticate(requestWith({ authorization: `Bearer ${value}` }));
        await jwt.authenticate(requestWith({ authorization: value }));
      }),
      { numRuns: 300 },
    );
  });
});
