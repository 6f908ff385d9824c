import { beforeAll, describe, expect, it } from 'vitest';
import { JwtAuthenticator, JwtConfig } from '../../src/jwt/index.js';
import { NOW, SECRET, claimsAt, recordEvents, requestWith, sign } from './support.js';

const hs = () => new JwtAuthenticator(new JwtConfig(SECRET).clock(() => NOW));

describe('the Authorization header', () => {
  let token: string;
  beforeAll(async () => {
    token = await sign(SECRET, claimsAt({ roles: ['USER'] }));
  });

  it('accepts the scheme in any case, and extra spaces before the token', async () => {
    for (const value of [
      `Bearer ${token}`,
      `bearer ${token}`,
      `BEARER ${token}`,
      `Bearer   ${token}`,
      `Bearer ${token} `,
    ]) {
      expect(
        (await hs().authenticate(requestWith({ authorization: value })))?.username,
        value,
      ).toBe('alice');
    }
  });

  it('refuses doubled or repeated bearer credentials, noting a failure', async () => {
    for (const value of [
      `Bearer Bearer ${token}`,
      `Bearer ${token}, Bearer ${token}`,
      `Bearer ${token}.${token}`,
      'Bearer ',
    ]) {
      const { events, received } = recordEvents();
      const jwt = new JwtAuthenticator(
        new JwtConfig(SECRET).clock(() => NOW),
        { events },
      );
      expect(await jwt.authenticate(requestWith({ authorization: value })), value).toBeNull();
      expect(received, value).toMatchObject([{ type: 'authentication-failure' }]);
    }
  });

  it('ignores other schemes and a missing prefix, without a failure', async () => {
    for (const value of [
      `Basic ${token}`,
      `Token ${token}`,
      token,
      `Bearer\t${token}`,
      `BearerBearer ${token}`,
      `xBearer ${token}`,
    ]) {
      const { events, received } = recordEvents();
      const jwt = new JwtAuthenticator(
        new JwtConfig(SECRET).clock(() => NOW),
        { events },
      );
      expect(await jwt.authenticate(requestWith({ authorization: value })), value).toBeNull();
      expect(received, value).toEqual([]);
    }
  });

  it('takes the scheme alone as a malformed request: anonymous, with a failure', async () => {
    for (const value of ['Bearer', 'bearer', ' Bearer ']) {
      const { events, received } = recordEvents();
      const jwt = new JwtAuthenticator(
        new JwtConfig(SECRET).clock(() => NOW),
        { events },
      );
      expect(await jwt.authenticate(requestWith({ authorization: value })), value).toBeNull();
      expect(
        received.map((e) => e.type),
        value,
      ).toEqual(['authentication-failure']);
    }
  });

  it('never reads the query string, a cookie or another header', async () => {
    const { events, received } = recordEvents();
    const jwt = new JwtAuthenticator(
      new JwtConfig(SECRET).clock(() => NOW),
      { events },
    );
    const request = requestWith(
      { cookie: `access_token=${token}`, 'x-access-token': token },
      `/api/data?access_token=${token}&token=${token}`,
    );
    expect(await jwt.authenticate(request)).toBeNull();
    expect(received).toEqual([]);
  });

  it('reads a configured header name and prefix only', async () => {
    const jwt = new JwtAuthenticator(
      new JwtConfig(SECRET)
        .headerName('X-Api-Token')
        .headerPrefix('JWT ')
        .clock(() => NOW),
    );
    expect((await jwt.authenticate(requestWith({ 'x-api-token': `jwt ${token}` })))?.username).toBe(
      'alice',
    );
    expect(await jwt.authenticate(requestWith({ authorization: `Bearer ${token}` }))).toBeNull();
    const raw = new JwtAuthenticator(new JwtConfig(SECRET).headerPrefix('').clock(() => NOW));
    expect((await raw.authenticate(requestWith({ authorization: token })))?.username).toBe('alice');
  });
});
