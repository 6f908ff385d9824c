import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { User } from '../../src/index.js';
import { OAuth2Error } from '../../src/oauth2/errors.js';
import {
  callback,
  CookieJar,
  type Fixture,
  GOOD_CODE,
  type Harness,
  HARNESS_KINDS,
  refusedCheck,
  type Reply,
  routeSetup,
  sessionUser,
  setCookieOf,
  startLogin,
} from './routes-support.js';

const TX = '__Host-oauth2';
const LOGIN_ERROR = '/login?error=oauth2';

describe.each(HARNESS_KINDS)('oauth2Login callback attacks (%s)', (kind) => {
  let fixture: Fixture;
  let harness: Harness;
  let jar: CookieJar;

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

  it('no transaction cookie: refused, the client never called', async () => {
    const { state } = await startLogin(harness, jar);
    const before = fixture.received.length;
    const stranger = new CookieJar();
    const reply = await harness.send(`/login/oauth2/code/google?code=${GOOD_CODE}&state=${state}`);
    jar = stranger;
    await expectRefused(reply, 'ERR_OAUTH2_TRANSACTION', before);
    expect(fixture.google.calls).toHaveLength(0);
  });

  it('a tampered transaction cookie: refused and cleared', async () => {
    const { state } = await startLogin(harness, jar);
    const sealed = jar.get(TX) ?? '';
    const at = sealed.length - 20;
    const flipped = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
    jar.apply([`${TX}=${flipped}; Path=/`]);
    const before = fixture.received.length;
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    await expectRefused(reply, 'ERR_OAUTH2_TRANSACTION', before);
    expect(setCookieOf(reply, TX)).toMatch(/; Max-Age=0; /u);
    expect(fixture.google.calls).toHaveLength(0);
  });

  it('a session cookie put in place of the transaction cookie: refused', async () => {
    const { state } = await startLogin(harness, jar);
    const session = await fixture.sessions.logIn(new User('alice', '', ['USER']));
    jar.apply([`${TX}=${session.split(';', 1)[0]?.split('=')[1] ?? ''}; Path=/`]);
    const before = fixture.received.length;
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    await expectRefused(reply, 'ERR_OAUTH2_TRANSACTION', before);
  });

  it('an expired transaction (past transactionTtlSeconds): refused', async () => {
    const { state } = await startLogin(harness, jar, 'google', '?continue=/me');
    fixture.clock.advance(600_000);
    const before = fixture.received.length;
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    await expectRefused(reply, 'ERR_OAUTH2_TRANSACTION', before, `${LOGIN_ERROR}&continue=%2Fme`);
    expect(fixture.google.calls).toHaveLength(0);
    expect(jar.get(TX)).toBeUndefined();
  });

  it('still valid just before the end of its lifetime', async () => {
    const { state } = await startLogin(harness, jar);
    fixture.clock.advance(599_000);
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    expect(reply.location).toBe('/');
    expect(await sessionUser(fixture.sessions, jar)).toBe('google:google-subject');
  });

  it('a copy of the cookie replayed after a successful login: refused', async () => {
    const { state } = await startLogin(harness, jar);
    const copy = jar.copy();
    const ok = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    expect(ok.location).toBe('/');
    jar = copy;
    const before = fixture.received.length;
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    await expectRefused(reply, 'ERR_OAUTH2_TRANSACTION', before);
    expect(fixture.google.calls).toHaveLength(1);
  });

  it('a copy of the cookie replayed after a failed attempt: refused too (one use only)', async () => {
    const { state } = await startLogin(harness, jar);
    const copy = jar.copy();
    await callback(harness, jar, 'google', `code=wrong&state=${state}`);
    expect(fixture.failures.at(-1)).toBe('ERR_OAUTH2_TOKEN_EXCHANGE');
    jar = copy;
    const before = fixture.received.length;
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    await expectRefused(reply, 'ERR_OAUTH2_TRANSACTION', before);
  });

  it('a callback for one provider replayed at another: refused, that client never called', async () => {
    const { state } = await startLogin(harness, jar, 'google');
    const before = fixture.received.length;
    const reply = await callback(harness, jar, 'github', `code=${GOOD_CODE}&state=${state}`);
    await expectRefused(reply, 'ERR_OAUTH2_TRANSACTION', before);
    expect(fixture.github.calls).toHaveLength(0);
    expect(fixture.google.calls).toHaveLength(0);
  });

  it('a client whose issuer changed since the login started: refused', async () => {
    const { state } = await startLogin(harness, jar, 'google');
    fixture.google.issuer = 'https://other.idp.example';
    const before = fixture.received.length;
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    await expectRefused(reply, 'ERR_OAUTH2_TRANSACTION', before);
    expect(fixture.google.calls).toHaveLength(0);
  });

  it.each([
    ['missing', () => `code=${GOOD_CODE}`],
    ['empty', () => `code=${GOOD_CODE}&state=`],
    ['wrong', (state: string) => `code=${GOOD_CODE}&state=${state}x`],
    ['a prefix', (state: string) => `code=${GOOD_CODE}&state=${state.slice(0, -1)}`],
  ])('%s state: refused, the pending transactions discarded', async (_, query) => {
    const { state } = await startLogin(harness, jar);
    const before = fixture.received.length;
    const reply = await callback(harness, jar, 'google', query(state));
    await expectRefused(reply, 'ERR_OAUTH2_STATE', before);
    expect(jar.get(TX)).toBeUndefined();
    expect(fixture.google.calls).toHaveLength(0);
  });

  it("a foreign state (another browser's login, e.g. the attacker's own): refused", async () => {
    const attacker = new CookieJar();
    const { state: attackerState } = await startLogin(harness, attacker);
    await startLogin(harness, jar);
    const before = fixture.received.length;
    const reply = await callback(
      harness,
      jar,
      'google',
      `code=${GOOD_CODE}&state=${attackerState}`,
    );
    await expectRefused(reply, 'ERR_OAUTH2_STATE', before);
  });

  it.each([
    ['state', (s: string) => `code=${GOOD_CODE}&state=${s}&state=${s}`],
    ['code', (s: string) => `code=${GOOD_CODE}&code=other&state=${s}`],
    ['iss', (s: string) => `code=${GOOD_CODE}&state=${s}&iss=a&iss=b`],
    ['error', (s: string) => `code=${GOOD_CODE}&state=${s}&error=a&error=b`],
  ])('a duplicated %s parameter: refused before the client sees it', async (_, query) => {
    const { state } = await startLogin(harness, jar);
    const before = fixture.received.length;
    const reply = await callback(harness, jar, 'google', query(state));
    await expectRefused(reply, 'ERR_OAUTH2_INVALID_RESPONSE', before);
    expect(fixture.google.calls).toHaveLength(0);
    expect(jar.get(TX)).toBeUndefined();
  });

  it("the provider's error (access_denied): the flag only, never the provider's text", async () => {
    const { state } = await startLogin(harness, jar, 'google', '?continue=/me');
    const before = fixture.received.length;
    const description = encodeURIComponent('<script>alert(1)</script> secret-detail');
    const reply = await callback(
      harness,
      jar,
      'google',
      `error=access_denied&error_description=${description}&state=${state}`,
    );
    await expectRefused(
      reply,
      'ERR_OAUTH2_PROVIDER_ERROR',
      before,
      `${LOGIN_ERROR}&continue=%2Fme`,
    );
    const everything = JSON.stringify(reply);
    expect(everything).not.toContain('script');
    expect(everything).not.toContain('secret-detail');
    expect(everything).not.toContain('access_denied');
    expect(jar.get(TX)).toBeUndefined();
  });

  it('an unexpected error of the client: the flag only, no details, no 500', async () => {
    fixture.google.failure = new TypeError('fetch failed: token=abc123 at https://internal');
    const { state } = await startLogin(harness, jar);
    const before = fixture.received.length;
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    await expectRefused(reply, 'ERR_OAUTH2_INVALID_RESPONSE', before);
    expect(JSON.stringify(reply)).not.toMatch(/abc123|internal|TypeError/u);
  });

  it('the ID token refused by the client (e.g. nonce): refused, reason invalid-token', async () => {
    fixture.google.failure = new OAuth2Error('ERR_OAUTH2_ID_TOKEN', 'nonce mismatch');
    const { state } = await startLogin(harness, jar);
    const before = fixture.received.length;
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    await expectRefused(reply, 'ERR_OAUTH2_ID_TOKEN', before);
    expect(fixture.received.slice(before)).toContainEqual(
      expect.objectContaining({ type: 'authentication-failure', reason: 'invalid-token' }),
    );
  });
});
