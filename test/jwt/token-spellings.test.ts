import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Access,
  AuthorizationManager,
  SecurityEvents,
  SecurityTransform,
} from '../../src/index.js';
import { JwtAuthenticator, JwtConfig, JwtTokenService } from '../../src/jwt/index.js';
import { VerifiedTokenCache } from '../../src/jwt/cache.js';
import { isCompactJws } from '../../src/jwt/compact.js';
import { User } from '../../src/core/user.js';
import { userOf, withSecurity } from '../../src/node/index.js';
import { listen, rawRequest, type TestServer } from '../support/server.js';
import {
  NOW,
  SECRET,
  bearer,
  claimsAt,
  expectJwtError,
  recordEvents,
  requestWith,
  secretOf,
  sign,
} from './support.js';

// Issue 15, defect 7: "one token, many spellings". Base64 decoders skip whitespace
// and ignore padding and spare bits, so each spelling below verified as the original
// token while being a different string: a miss of the verified-token cache, and a
// new token to anything keyed by the token.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The same bytes as a canonical base64url segment, its last character's spare bits set. */
function spareBitsSet(segment: string): string | undefined {
  const spare = segment.length % 4;
  if (spare === 0) return undefined;
  const last = ALPHABET.indexOf(segment.at(-1) ?? 'A');
  return `${segment.slice(0, -1)}${ALPHABET.charAt(last | (spare === 2 ? 0b1111 : 0b11))}`;
}

/** Re-spellings of a token that a lenient base64 decoder reads as the same bytes. */
function respellings(token: string): Record<string, string> {
  const [header = '', payload = '', signature = ''] = token.split('.');
  const at = (segment: string, insert: string) => segment.slice(0, 5) + insert + segment.slice(5);
  const spellings: Record<string, string> = {
    'a TAB in the signature': `${header}.${payload}.${at(signature, '\t')}`,
    'a space in the signature': `${header}.${payload}.${at(signature, ' ')}`,
    'a line feed in the signature': `${header}.${payload}.${at(signature, '\n')}`,
    'a carriage return in the signature': `${header}.${payload}.${at(signature, '\r')}`,
    'a form feed in the signature': `${header}.${payload}.${at(signature, '\f')}`,
    'padding on the signature': `${header}.${payload}.${signature}=`,
    'two paddings on the signature': `${header}.${payload}.${signature}==`,
    'standard base64 for the signature': `${header}.${payload}.${Buffer.from(
      signature,
      'base64url',
    ).toString('base64')}`,
    'a TAB in the payload': `${header}.${at(payload, '\t')}.${signature}`,
    'a space in the header': `${at(header, ' ')}.${payload}.${signature}`,
    'padding on the payload': `${header}.${payload}=.${signature}`,
    'a no-break space in the signature': `${header}.${payload}.${at(signature, '\u00a0')}`,
    'a leading space': ` ${token}`,
    'a trailing TAB': `${token}\t`,
  };
  const noisy = spareBitsSet(signature);
  if (noisy !== undefined)
    spellings['spare bits set in the signature'] = `${header}.${payload}.${noisy}`;
  return spellings;
}

const config = () => new JwtConfig(SECRET).clock(() => NOW);

describe('one token, many spellings (issue 15, defect 7)', () => {
  let token: string;
  beforeAll(async () => {
    token = await sign(SECRET, claimsAt({ roles: ['USER'] }));
  });

  it('the signed token is canonical, so each re-spelling is a different string', () => {
    expect(isCompactJws(token)).toBe(true);
    for (const [name, spelling] of Object.entries(respellings(token))) {
      expect(spelling, name).not.toBe(token);
      expect(isCompactJws(spelling), name).toBe(false);
    }
  });

  it('validateToken refuses each re-spelling as malformed, before decoding', async () => {
    const jwt = new JwtAuthenticator(config());
    expect((await jwt.validateToken(token)).claims.sub).toBe('alice');
    for (const [name, spelling] of Object.entries(respellings(token))) {
      const error = await expectJwtError(jwt.validateToken(spelling), 'ERR_JWT_MALFORMED');
      // Refused by the shape check, not by jose after decoding.
      expect(error.cause, name).toBeUndefined();
    }
  });

  it('a bearer header with a re-spelled token is anonymous, with a failure, and misses no cache entry it could fill', async () => {
    const { events, received } = recordEvents();
    const jwt = new JwtAuthenticator(config(), { events });
    // The original fills the cache.
    expect((await jwt.authenticate(requestWith(bearer(token))))?.username).toBe('alice');
    for (const [name, spelling] of Object.entries(respellings(token))) {
      if (/^a (leading space|trailing TAB)$/u.test(name)) continue; // header whitespace, below
      received.length = 0;
      expect(await jwt.authenticate(requestWith(bearer(spelling))), name).toBeNull();
      expect(received, name).toMatchObject([
        { type: 'authentication-failure', reason: 'invalid-token' },
      ]);
    }
    // The original still verifies from the cache.
    expect(jwt.authenticate(requestWith(bearer(token)))).toMatchObject({ username: 'alice' });
  });

  it('the header is `Bearer 1*SP b64token` plus trailing whitespace: no other space is trimmed', async () => {
    const jwt = new JwtAuthenticator(config());
    for (const value of [`Bearer  ${token}`, `Bearer ${token} `, `Bearer ${token}\t`]) {
      expect((await jwt.authenticate(requestWith({ authorization: value })))?.username, value).toBe(
        'alice',
      );
    }
    for (const value of [
      `Bearer \t${token}`,
      `Bearer \u00a0${token}`,
      `Bearer ${token}\u00a0`,
      `Bearer ${token}\u2028`,
      `Bearer ${token}\v`,
      `Bearer \ufeff${token}`,
    ]) {
      expect(await jwt.authenticate(requestWith({ authorization: value })), value).toBeNull();
    }
  });

  it('a refresh token re-spelled is malformed: no second rotation, no revocation by a stranger spelling', async () => {
    const service = new JwtTokenService(config());
    const alice = new User('alice', '', ['USER'], []);
    const loadUser = () => alice;
    const { refreshToken } = await service.generateTokenPair(alice);
    for (const spelling of Object.values(respellings(refreshToken))) {
      await expectJwtError(service.refresh(spelling, loadUser), 'ERR_JWT_MALFORMED');
      await expectJwtError(service.revokeFamily(spelling), 'ERR_JWT_MALFORMED');
    }
    // The original was neither spent nor revoked by the attempts.
    const pair = await service.refresh(refreshToken, loadUser);
    expect(pair.refreshToken).not.toBe(refreshToken);
  });

  describe('over HTTP (node adapter, raw socket)', () => {
    let server: TestServer;
    beforeAll(async () => {
      const events = new SecurityEvents();
      const transform = new SecurityTransform({ events })
        .configAuthenticator(() => new JwtAuthenticator(config(), { events }))
        .configAuthorizer(() =>
          AuthorizationManager.requestMatcher()
            .bearer()
            .addMatcher('/.*', new Access().authenticated()),
        );
      server = await listen(
        withSecurity(transform, (req, res) => {
          res.end(`hello ${userOf(req)?.username ?? 'anonymous'}`);
        }),
      );
    });
    afterAll(() => server.close());

    it('a TAB or a padding inside the token answers 401 invalid_token, the original 200', async () => {
      const ok = await rawRequest(server.origin, 'GET', '/api', {
        authorization: `Bearer ${token}`,
      });
      expect(ok.status).toBe(200);
      expect(ok.body).toBe('hello alice');
      const spellings = respellings(token);
      for (const name of [
        'a TAB in the signature',
        'padding on the signature',
        'a space in the signature',
      ]) {
        const spelling = spellings[name] as string;
        const response = await rawRequest(server.origin, 'GET', '/api', {
          authorization: `Bearer ${spelling}`,
        });
        expect(response.status, name).toBe(401);
        expect(response.headers, name).toMatch(/www-authenticate: Bearer[^\r\n]*invalid_token/iu);
        expect(response.body, name).not.toContain('alice');
      }
    });
  });
});

describe('the verified-token cache key', () => {
  it('is the SHA-256 of the token, and distinct tokens give distinct keys', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        (a, b) => a === b || VerifiedTokenCache.keyOf(a) !== VerifiedTokenCache.keyOf(b),
      ),
      { numRuns: 300 },
    );
  });

  it('belongs to one authenticator: a token cached by one configuration is refused by another', async () => {
    const other = secretOf(64);
    const issued = (iss: string, aud: string) =>
      sign(SECRET, claimsAt({ roles: ['USER'], iss, aud }));
    const token = await issued('https://a.example', 'api-a');
    const first = new JwtAuthenticator(config().issuer('https://a.example').audience('api-a'));
    expect((await first.authenticate(requestWith(bearer(token))))?.username).toBe('alice');
    expect(first.authenticate(requestWith(bearer(token)))).toMatchObject({ username: 'alice' }); // hit
    for (const [name, second] of Object.entries({
      'another secret': new JwtAuthenticator(
        new JwtConfig(other)
          .clock(() => NOW)
          .issuer('https://a.example')
          .audience('api-a'),
      ),
      'another issuer': new JwtAuthenticator(
        config().issuer('https://b.example').audience('api-a'),
      ),
      'another audience': new JwtAuthenticator(
        config().issuer('https://a.example').audience('api-b'),
      ),
    })) {
      expect(await second.authenticate(requestWith(bearer(token))), name).toBeNull();
    }
  });

  it('never holds a re-spelling: any whitespace, padding or foreign character inserted anywhere is malformed', async () => {
    const { events, received } = recordEvents();
    const jwt = new JwtAuthenticator(config(), { events });
    const token = await sign(SECRET, claimsAt({ roles: ['USER'] }));
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: token.length }),
        fc.constantFrom(
          ' ',
          '\t',
          '\n',
          '\r',
          '=',
          '+',
          '/',
          '~',
          '%',
          '\u00a0',
          '\u3000',
          '\u0000',
          ',',
        ),
        async (position, inserted) => {
          const spelling = token.slice(0, position) + inserted + token.slice(position);
          received.length = 0;
          const user = await jwt.authenticate(requestWith(bearer(spelling)));
          // Spaces after the scheme are `1*SP`, trailing ones and TABs optional
          // whitespace; anything else is refused.
          const blank =
            (position === 0 && inserted === ' ') ||
            (position === token.length && (inserted === ' ' || inserted === '\t'));
          if (blank) expect(user?.username).toBe('alice');
          else {
            expect(user).toBeNull();
            expect(received).toMatchObject([{ type: 'authentication-failure' }]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
