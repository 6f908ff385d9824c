import { sealData } from 'iron-session';
import { describe, expect, it } from 'vitest';
import {
  derivePasswords,
  MAX_SEAL,
  readTransactions,
  writeTransactions,
  type LoginTransaction,
  type TransactionCookieSettings,
} from '../../src/oauth2/transaction.js';
import { NOW, PASSWORD } from './routes-support.js';

function settings(overrides: Partial<TransactionCookieSettings> = {}): TransactionCookieSettings {
  return {
    passwords: derivePasswords('passwords', PASSWORD),
    secure: true,
    ttlSeconds: 600,
    maxPending: 3,
    clock: () => NOW,
    ...overrides,
  };
}

let counter = 0;
function transaction(overrides: Partial<LoginTransaction> = {}): LoginTransaction {
  counter++;
  return {
    id: `${'a'.repeat(20)}${String(counter % 100).padStart(2, '0')}`,
    registrationId: 'google',
    issuer: 'https://accounts.google.com',
    state: `state-${counter}`,
    pkceVerifier: `verifier-${counter}`,
    nonce: `nonce-${counter}`,
    returnTarget: '/',
    createdAt: NOW,
    ...overrides,
  };
}

function valueOf(written: { setCookie: string } | string): string {
  const setCookie = typeof written === 'string' ? written : written.setCookie;
  const pair = setCookie.split(';', 1)[0] ?? '';
  return pair.slice(pair.indexOf('=') + 1);
}

describe('derivePasswords', () => {
  it('derives a distinct, stable 43-character password per id', () => {
    const a = derivePasswords('passwords', { 1: PASSWORD, 2: `${PASSWORD}x` });
    expect(Object.keys(a)).toEqual(['1', '2']);
    expect(a['1']).toMatch(/^[A-Za-z0-9_-]{43}$/u);
    expect(a['1']).not.toBe(PASSWORD);
    expect(a['1']).not.toBe(a['2']);
    expect(derivePasswords('passwords', PASSWORD)).toEqual({ 1: a['1'] });
  });

  it.each([[''], ['short'], [{}], [{ 0: PASSWORD }], [{ x: PASSWORD }], [{ 1: 42 }], [null], [7]])(
    'refuses %j',
    (value) => {
      expect(() => derivePasswords('passwords', value)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'passwords' }) as Error,
      );
    },
  );
});

describe('the transaction cookie', () => {
  it('round-trips the pending transactions, newest first', async () => {
    const s = settings();
    const list = [transaction({ nonce: undefined }), transaction({ returnTarget: '/me?x=1' })];
    const cookie = await writeTransactions(s, list);
    expect(await readTransactions(s, valueOf(cookie))).toEqual(list);
  });

  it('keeps at most maxPending and drops expired ones', async () => {
    const s = settings({ maxPending: 2 });
    const old = transaction({ createdAt: NOW - 600_000 });
    const list = [transaction(), transaction(), transaction(), old];
    const read = await readTransactions(s, valueOf(await writeTransactions(s, list)));
    expect(read).toEqual(list.slice(0, 2));
    const expiredOnly = await writeTransactions(s, [old]);
    expect(expiredOnly.kept).toBe(0);
    expect(expiredOnly.setCookie).toMatch(/^__Host-oauth2=; Path=\/; Max-Age=0; /u);
  });

  it('drops the oldest when the seal would not fit in a cookie', async () => {
    const s = settings();
    const big = (): LoginTransaction => transaction({ returnTarget: `/${'x'.repeat(1200)}` });
    const list = [big(), big(), big()];
    const cookie = await writeTransactions(s, list);
    expect(valueOf(cookie).length).toBeLessThanOrEqual(MAX_SEAL);
    const read = await readTransactions(s, valueOf(cookie));
    expect(read?.length).toBeGreaterThanOrEqual(1);
    expect(read?.length).toBeLessThan(3);
    expect(read?.[0]).toEqual(list[0]);
  });

  it('one transaction with the longest target kept (1024) fits', async () => {
    const s = settings();
    const long = transaction({
      returnTarget: `/${'x'.repeat(1023)}`,
      issuer: `https://${'i'.repeat(200)}`,
    });
    const read = await readTransactions(s, valueOf(await writeTransactions(s, [long])));
    expect(read).toEqual([long]);
  });

  it('refuses garbage, other seals and other shapes (never throws)', async () => {
    const s = settings();
    const good = valueOf(await writeTransactions(s, [transaction()]));
    const sealWith = (data: unknown, password = s.passwords): Promise<string> =>
      sealData(data, { password, ttl: 600 });
    const cases = [
      '',
      'garbage',
      `${good.slice(0, -10)}AAAAAAAA~2`,
      good.replace('Fe26.2*1*', 'Fe26.2*9*'),
      `${good}x`,
      'x'.repeat(5000),
      // Sealed with the raw session password (a session cookie): not a transaction.
      await sealWith({ v: 1, t: [] }, { 1: PASSWORD }),
      await sealWith({ v: 2, t: [] }),
      await sealWith({ v: 1, t: [] }),
      await sealWith({ v: 1, t: 'x' }),
      await sealWith({ v: 1, t: [{ id: 'short' }] }),
      await sealWith({ v: 1, t: Array.from({ length: 11 }, () => ({})) }),
    ];
    for (const value of cases) {
      expect(await readTransactions(s, value)).toBeUndefined();
    }
  });

  it('refuses an entry with a bad field', async () => {
    const s = settings();
    const fields: Partial<Record<string, unknown>>[] = [
      { r: 'bad id' },
      { i: '' },
      { s: 'x'.repeat(513) },
      { p: 5 },
      { n: '' },
      { g: 'https://evil.com' },
      { c: 'now' },
    ];
    for (const field of fields) {
      const entry = {
        id: 'a'.repeat(22),
        r: 'google',
        i: 'https://issuer',
        s: 'state',
        p: 'verifier',
        n: null,
        g: '/',
        c: NOW,
        ...field,
      };
      const sealed = await sealData({ v: 1, t: [entry] }, { password: s.passwords, ttl: 600 });
      expect([field, await readTransactions(s, sealed)]).toEqual([field, undefined]);
    }
  });
});
