import { describe, expect, it } from 'vitest';
import { readTransactions, derivePasswords } from '../../src/oauth2/transaction.js';
import {
  callback,
  CookieJar,
  fetchHarness,
  GOOD_CODE,
  makeFixture,
  PASSWORD,
  sessionUser,
  startLogin,
} from './routes-support.js';

const TX = '__Host-oauth2';

describe('oauth2Login: several logins pending in one browser', () => {
  it('two tabs, two providers: both complete, in either order', async () => {
    const fixture = makeFixture();
    const harness = fetchHarness(fixture.login);
    const jar = new CookieJar();
    const google = await startLogin(harness, jar, 'google', '?continue=/a');
    const github = await startLogin(harness, jar, 'github', '?continue=/b');

    const first = await callback(harness, jar, 'github', `code=${GOOD_CODE}&state=${github.state}`);
    expect(first.location).toBe('/b');
    expect(await sessionUser(fixture.sessions, jar)).toBe('github:github-subject');
    // The other login is still pending.
    expect(jar.get(TX)).toBeDefined();

    const second = await callback(
      harness,
      jar,
      'google',
      `code=${GOOD_CODE}&state=${google.state}`,
    );
    expect(second.location).toBe('/a');
    expect(await sessionUser(fixture.sessions, jar)).toBe('google:google-subject');
    expect(jar.get(TX)).toBeUndefined();
  });

  it('two tabs, one provider: each callback finds its own transaction', async () => {
    const fixture = makeFixture();
    const harness = fetchHarness(fixture.login);
    const jar = new CookieJar();
    const one = await startLogin(harness, jar, 'google', '?continue=/one');
    const two = await startLogin(harness, jar, 'google', '?continue=/two');
    expect(
      (await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${one.state}`)).location,
    ).toBe('/one');
    expect(
      (await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${two.state}`)).location,
    ).toBe('/two');
    const calls = fixture.google.calls.map((c) => c.expected.state);
    expect(calls).toEqual([one.state, two.state]);
  });

  it('at most maxPendingLogins: the oldest is dropped (its callback refused)', async () => {
    const fixture = makeFixture({ maxPendingLogins: 2 });
    const harness = fetchHarness(fixture.login);
    const jar = new CookieJar();
    const oldest = await startLogin(harness, jar);
    const middle = await startLogin(harness, jar);
    const newest = await startLogin(harness, jar);
    const stored = await readTransactions(
      {
        passwords: derivePasswords('passwords', PASSWORD),
        secure: true,
        ttlSeconds: 600,
        maxPending: 2,
        clock: fixture.clock.now,
      },
      jar.get(TX) ?? '',
    );
    expect(stored?.map((t) => t.state)).toEqual([newest.state, middle.state]);
    const refused = await callback(
      harness,
      jar,
      'google',
      `code=${GOOD_CODE}&state=${oldest.state}`,
    );
    expect(refused.location).toBe('/login?error=oauth2');
    expect(fixture.failures).toEqual(['ERR_OAUTH2_STATE']);
  });

  it('expired pending logins are dropped when a new one starts', async () => {
    const fixture = makeFixture();
    const harness = fetchHarness(fixture.login);
    const jar = new CookieJar();
    await startLogin(harness, jar);
    fixture.clock.advance(601_000);
    const fresh = await startLogin(harness, jar);
    const stored = await readTransactions(
      {
        passwords: derivePasswords('passwords', PASSWORD),
        secure: true,
        ttlSeconds: 600,
        maxPending: 3,
        clock: fixture.clock.now,
      },
      jar.get(TX) ?? '',
    );
    expect(stored?.map((t) => t.state)).toEqual([fresh.state]);
  });

  it('a login started with an unreadable transaction cookie replaces it', async () => {
    const fixture = makeFixture();
    const harness = fetchHarness(fixture.login);
    const jar = new CookieJar().apply([`${TX}=garbage; Path=/`]);
    const { state } = await startLogin(harness, jar);
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    expect(reply.location).toBe('/');
  });
});
