import { describe, expect, it } from 'vitest';
import { JwtAuthenticator, JwtConfig } from '../../src/jwt/index.js';
import { isPromiseLike } from '../../src/lib/promise.js';
import { NOW_S, SECRET, bearer, claimsAt, requestWith, sign, testClock } from './support.js';

function jwt() {
  return new JwtAuthenticator(new JwtConfig(SECRET).clock(testClock()));
}

describe('JwtAuthenticator.attempt', () => {
  it('no Authorization header, or another scheme: anonymous, at once', () => {
    const authenticator = jwt();
    expect(authenticator.attempt(requestWith())).toEqual({ kind: 'anonymous' });
    const basic = authenticator.attempt(requestWith({ authorization: 'Basic YTpi' }));
    expect(isPromiseLike(basic)).toBe(false);
    expect(basic).toEqual({ kind: 'anonymous' });
  });

  it('the scheme without a token: failed with the RFC 6750 invalid_request challenge', () => {
    expect(jwt().attempt(requestWith({ authorization: 'Bearer' }))).toEqual({
      kind: 'failed',
      reason: 'invalid-token',
      username: undefined,
      challenge: {
        scheme: 'Bearer',
        error: 'invalid_request',
        description: 'The request has no access token',
      },
    });
  });

  it('a malformed, forged or expired token: failed with its invalid_token challenge', async () => {
    const authenticator = jwt();
    const cases: [string, string, string][] = [
      ['not.a.jwt!', 'invalid-token', 'The access token is malformed'],
      [
        await sign('another-secret-of-at-least-32-bytes-long!', claimsAt()),
        'invalid-token',
        'The access token signature is invalid',
      ],
      [await sign(SECRET, claimsAt({}, NOW_S - 3600)), 'expired-token', 'The access token expired'],
    ];
    for (const [token, reason, description] of cases) {
      expect(await authenticator.attempt(requestWith(bearer(token)))).toEqual({
        kind: 'failed',
        reason,
        username: undefined,
        challenge: { scheme: 'Bearer', error: 'invalid_token', description },
      });
      // authenticate() and getUser() are attempt()'s user: nobody.
      expect(await authenticator.authenticate(requestWith(bearer(token)))).toBeNull();
      expect(await authenticator.getUser(requestWith(bearer(token)))).toBeNull();
    }
  });

  it('a valid token: authenticated, with the same user authenticate() answers', async () => {
    const authenticator = jwt();
    const token = await sign(SECRET, claimsAt({ roles: ['USER'] }));
    const outcome = await authenticator.attempt(requestWith(bearer(token)));
    expect(outcome).toMatchObject({
      kind: 'authenticated',
      user: { username: 'alice', authenticationMethod: 'jwt' },
    });
    expect(await authenticator.authenticate(requestWith(bearer(token)))).toBe(
      outcome.kind === 'authenticated' ? outcome.user : undefined,
    );
  });
});
