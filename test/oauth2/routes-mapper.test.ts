import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { User, type SecurityEvents } from '../../src/index.js';
import { OAuth2Error } from '../../src/oauth2/errors.js';
import {
  callback,
  CookieJar,
  type Fixture,
  GOOD_CODE,
  type Harness,
  HARNESS_KINDS,
  makeFixture,
  refusedCheck,
  type Reply,
  routeSetup,
  sessionUser,
  startLogin,
} from './routes-support.js';

const LOGIN_ERROR = '/login?error=oauth2';

describe.each(HARNESS_KINDS)('oauth2Login mapper and hooks (%s)', (kind) => {
  let fixture: Fixture;
  let harness: Harness;
  let jar: CookieJar;

  async function setUp(options: Parameters<typeof makeFixture>[0] = {}): Promise<void> {
    await harness.close();
    ({ fixture, harness } = await routeSetup(kind, options));
  }

  beforeEach(async () => {
    ({ fixture, harness, jar } = await routeSetup(kind));
  });
  afterEach(() => harness.close());

  const expectRefused = (
    reply: Reply,
    code: string,
    before: number,
    location?: string,
  ): Promise<void> => refusedCheck(fixture, jar, reply, code, before, location);

  describe('the mapper', () => {
    it.each([
      ['returns null', () => null],
      ['rejects', () => Promise.reject(new Error('database down: password=x'))],
      [
        'throws',
        () => {
          throw new Error('boom');
        },
      ],
      [
        'returns a look-alike of a User',
        () =>
          ({
            username: 'admin',
            roles: new Set(['ADMIN']),
            authorities: new Set<string>(),
          }) as unknown as User,
      ],
      ['resolves to null', () => Promise.resolve(null)],
    ])('%s: refused, no session', async (_, mapper) => {
      await setUp({ mapper });
      const { state } = await startLogin(harness, jar);
      const before = fixture.received.length;
      const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
      await expectRefused(reply, 'ERR_OAUTH2_USER_REFUSED', before);
      expect(fixture.received.slice(before)).toContainEqual(
        expect.objectContaining({ type: 'authentication-failure', reason: 'unknown-user' }),
      );
      expect(JSON.stringify(reply)).not.toMatch(/password|database|boom/u);
    });

    it('a session that cannot be made (logIn throws): refused', async () => {
      await setUp({
        sessions: { logIn: () => Promise.reject(new Error('too large')) },
        passwords: 'another-password-for-the-transactions-000',
      });
      const { state } = await startLogin(harness, jar);
      const before = fixture.received.length;
      const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
      await expectRefused(reply, 'ERR_OAUTH2_USER_REFUSED', before);
    });
  });

  it('a failing event listener or failure hook does not change the answer', async () => {
    const publisher = {
      hasListeners: true,
      publish: () => {
        throw new Error('publisher');
      },
    } as unknown as SecurityEvents;
    await setUp({
      events: publisher,
      onFailure: () => {
        throw new Error('hook');
      },
    });
    const { state } = await startLogin(harness, jar);
    const failed = await callback(harness, jar, 'google', `code=wrong&state=${state}`);
    expect(failed.status).toBe(303);
    expect(failed.location).toBe(LOGIN_ERROR);
    const again = await startLogin(harness, jar);
    const ok = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${again.state}`);
    expect(ok.location).toBe('/');
    expect(await sessionUser(fixture.sessions, jar)).toBe('google:google-subject');
  });

  it('the client failing to start a login: the flag, no transaction', async () => {
    fixture.google.startFailure = new OAuth2Error('ERR_OAUTH2_NETWORK', 'unreachable');
    const before = fixture.received.length;
    const { reply } = await startLogin(harness, jar, 'google', '?continue=/me');
    expect(reply.status).toBe(303);
    expect(reply.location).toBe(`${LOGIN_ERROR}&continue=%2Fme`);
    expect(reply.setCookies).toEqual([]);
    expect(fixture.failures.at(-1)).toBe('ERR_OAUTH2_NETWORK');
    expect(fixture.received.slice(before)).toContainEqual(
      expect.objectContaining({ type: 'authentication-failure', reason: 'other' }),
    );
  });
});
