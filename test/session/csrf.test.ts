import { beforeAll, describe, expect, it } from 'vitest';
import { createSecurityRequest } from '../../src/index.js';
import { ALICE, MALLORY, makeSessions, request, type SessionsFixture } from './support.js';

const UNSAFE = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
const SAFE = ['GET', 'HEAD', 'OPTIONS'] as const;
const OWN = 'http://app.example';

interface Session {
  readonly fixture: SessionsFixture;
  readonly cookie: string;
  readonly token: string;
}

async function session(config: Parameters<typeof makeSessions>[0] = {}): Promise<Session> {
  const fixture = makeSessions(config);
  const cookie = await fixture.sessions.logIn(ALICE);
  const { token } = await fixture.sessions.csrfToken(request({ cookie }));
  return { fixture, cookie, token };
}

/** Authenticates `method` with the session cookie and `headers`; the user name or null, and the CSRF reason. */
async function attempt(
  s: Session,
  method: string,
  headers: Readonly<Record<string, string>>,
  options: { secure?: boolean } = {},
): Promise<{ user: string | null; reason: string | undefined; refused: boolean }> {
  const before = s.fixture.received.length;
  const req = request({ method, cookie: s.cookie, headers, secure: options.secure ?? false });
  const outcome = await s.fixture.sessions.attempt(req);
  const events = s.fixture.received.slice(before);
  const rejected = events.find((e) => e.type === 'csrf-rejected');
  // The outcome is the whole answer: a refusal (403) carries the reason `csrf`.
  const refusedOutcome = outcome.kind === 'refused';
  if (refusedOutcome) expect(outcome).toEqual({ kind: 'refused', status: 403, reason: 'csrf' });
  // authenticate() is attempt()'s user.
  const user = await s.fixture.sessions.authenticate(
    request({ method, cookie: s.cookie, headers, secure: options.secure ?? false }),
  );
  expect(user?.username ?? null).toBe(
    outcome.kind === 'authenticated' ? outcome.user.username : null,
  );
  return {
    user: user?.username ?? null,
    reason: rejected?.type === 'csrf-rejected' ? rejected.reason : undefined,
    refused: refusedOutcome,
  };
}

const passes = { user: 'alice', reason: undefined, refused: false };
const refused = (reason: string) => ({ user: null, reason, refused: true });

describe.each(UNSAFE)('CSRF checks on %s', (method) => {
  let s: Session;
  let trusted: Session;
  beforeAll(async () => {
    s = await session();
    trusted = await session({ trustedOrigins: ['https://admin.example'] });
  });

  describe('Sec-Fetch-Site', () => {
    it('cross-site and same-site are refused', async () => {
      expect(await attempt(s, method, { 'sec-fetch-site': 'cross-site' })).toEqual(
        refused('cross-site'),
      );
      expect(
        await attempt(s, method, { 'sec-fetch-site': 'same-site', origin: 'http://x.app.example' }),
      ).toEqual(refused('cross-site'));
      // Even with the right token: the browser said it came from elsewhere.
      expect(
        await attempt(s, method, {
          'sec-fetch-site': 'cross-site',
          origin: 'https://evil.example',
          'x-csrf-token': s.token,
        }),
      ).toEqual(refused('cross-site'));
      // An unknown value is not same-origin.
      expect(await attempt(s, method, { 'sec-fetch-site': 'same-origin-ish' })).toEqual(
        refused('cross-site'),
      );
    });

    it('same-origin and none (typed URL, bookmark) pass', async () => {
      expect(await attempt(s, method, { 'sec-fetch-site': 'same-origin' })).toEqual(passes);
      expect(await attempt(s, method, { 'sec-fetch-site': 'none' })).toEqual(passes);
      expect(await attempt(s, method, { 'sec-fetch-site': ' Same-Origin ' })).toEqual(passes);
    });

    it('same-site and cross-site pass from a trusted origin only', async () => {
      for (const site of ['same-site', 'cross-site']) {
        expect(
          await attempt(trusted, method, {
            'sec-fetch-site': site,
            origin: 'https://admin.example',
          }),
        ).toEqual(passes);
        expect(
          await attempt(trusted, method, {
            'sec-fetch-site': site,
            origin: 'https://evil.example',
          }),
        ).toEqual(refused('cross-site'));
        expect(await attempt(trusted, method, { 'sec-fetch-site': site })).toEqual(
          refused('cross-site'),
        );
      }
    });
  });

  describe('Origin without Sec-Fetch-Site', () => {
    it('the own origin from Host passes (http), another origin is refused', async () => {
      expect(await attempt(s, method, { origin: OWN })).toEqual(passes);
      for (const origin of [
        'https://evil.example',
        'http://app.example.evil.example',
        'http://evil.example/http://app.example',
        'http://app.example:8080',
        'https://app.example',
        'HTTP://APP.EXAMPLE.',
      ]) {
        expect(await attempt(s, method, { origin })).toEqual(refused('untrusted-origin'));
      }
    });

    it('over TLS (secure) the own origin is https', async () => {
      expect(await attempt(s, method, { origin: 'https://app.example' }, { secure: true })).toEqual(
        passes,
      );
      expect(await attempt(s, method, { origin: OWN }, { secure: true })).toEqual(
        refused('untrusted-origin'),
      );
    });

    it('Origin: null (sandboxed frame, data: URL, some redirects) is refused', async () => {
      expect(await attempt(s, method, { origin: 'null' })).toEqual(refused('untrusted-origin'));
      expect(await attempt(s, method, { origin: 'null', 'x-csrf-token': s.token })).toEqual(
        refused('untrusted-origin'),
      );
    });

    it('a trusted origin passes', async () => {
      expect(await attempt(trusted, method, { origin: 'https://admin.example' })).toEqual(passes);
    });

    it('origins([...]) behind a proxy: the public origin passes, the internal Host does not', async () => {
      const proxied = await session({ origins: ['https://public.example'] });
      const internal = { host: 'backend:8080' };
      expect(
        await attempt(proxied, method, { ...internal, origin: 'https://public.example' }),
      ).toEqual(passes);
      expect(
        await attempt(proxied, method, { ...internal, origin: 'http://backend:8080' }),
      ).toEqual(refused('untrusted-origin'));
      expect(await attempt(proxied, method, { origin: OWN })).toEqual(refused('untrusted-origin'));
    });

    it('a Host header that is not a host name gives no own origin', async () => {
      expect(
        await attempt(s, method, { host: 'app.example/x', origin: 'http://app.example/x' }),
      ).toEqual(refused('untrusted-origin'));
    });

    it('an absolute request URL (Fetch adapters) gives the own origin', async () => {
      const req = createSecurityRequest({
        method,
        url: 'https://app.example/api',
        header: (name) =>
          ({ cookie: s.cookie.split(';', 1)[0], origin: 'https://app.example' })[name],
        secure: true,
      });
      expect((await s.fixture.sessions.authenticate(req))?.username).toBe('alice');
    });
  });

  describe('no browser metadata (a non-browser client): the token decides', () => {
    it('missing, wrong or another session’s token is refused; the right one passes', async () => {
      expect(await attempt(s, method, {})).toEqual(refused('missing-token'));
      expect(await attempt(s, method, { 'x-csrf-token': 'wrong' })).toEqual(
        refused('invalid-token'),
      );
      expect(
        await attempt(s, method, {
          'x-csrf-token': `${s.token.slice(0, -1)}${s.token.endsWith('A') ? 'B' : 'A'}`,
        }),
      ).toEqual(refused('invalid-token'));
      expect(await attempt(s, method, { 'x-csrf-token': `${s.token}x` })).toEqual(
        refused('invalid-token'),
      );
      const other = await s.fixture.sessions.logIn(MALLORY);
      const { token: othersToken } = await s.fixture.sessions.csrfToken(request({ cookie: other }));
      expect(await attempt(s, method, { 'x-csrf-token': othersToken })).toEqual(
        refused('invalid-token'),
      );
      // The anonymous login-page token of another browser is not this session's either.
      const anon = await s.fixture.sessions.csrfToken(request());
      expect(await attempt(s, method, { 'x-csrf-token': anon.token })).toEqual(
        refused('invalid-token'),
      );
      expect(await attempt(s, method, { 'x-csrf-token': s.token })).toEqual(passes);
      expect(await attempt(s, method, { 'X-CSRF-Token': s.token })).toEqual(passes);
    });

    it('a custom header name is read instead', async () => {
      const custom = await session({ csrfHeaderName: 'X-XSRF-TOKEN' });
      expect(await attempt(custom, method, { 'x-xsrf-token': custom.token })).toEqual(passes);
      expect(await attempt(custom, method, { 'x-csrf-token': custom.token })).toEqual(
        refused('missing-token'),
      );
    });
  });

  it('a wrong header token is refused even from the same origin', async () => {
    expect(
      await attempt(s, method, { 'sec-fetch-site': 'same-origin', 'x-csrf-token': 'nope' }),
    ).toEqual(refused('invalid-token'));
    expect(await attempt(s, method, { origin: OWN, 'x-csrf-token': 'nope' })).toEqual(
      refused('invalid-token'),
    );
    expect(
      await attempt(s, method, { 'sec-fetch-site': 'same-origin', 'x-csrf-token': s.token }),
    ).toEqual(passes);
  });

  it('a text/plain body needs the token, even from the same origin', async () => {
    for (const type of ['text/plain', 'Text/Plain; charset=UTF-8', ' text/plain ;x=y']) {
      const headers = { 'sec-fetch-site': 'same-origin', 'content-type': type };
      expect(await attempt(s, method, headers)).toEqual(refused('missing-token'));
      expect(await attempt(s, method, { ...headers, 'x-csrf-token': s.token })).toEqual(passes);
    }
    expect(
      await attempt(s, method, {
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/json',
      }),
    ).toEqual(passes);
  });

  it('dangerouslyDisableCsrf turns every check off', async () => {
    const off = await session({ dangerouslyDisableCsrf: true });
    expect(await attempt(off, method, { 'sec-fetch-site': 'cross-site' })).toEqual(passes);
    expect(await attempt(off, method, {})).toEqual(passes);
    expect(await attempt(off, method, { 'x-csrf-token': 'wrong' })).toEqual(passes);
  });
});

describe('CSRF checks do not apply', () => {
  it.each(SAFE)('to %s, even cross-site without a token', async (method) => {
    const s = await session();
    expect(await attempt(s, method, { 'sec-fetch-site': 'cross-site' })).toEqual(passes);
    expect(await attempt(s, method, {})).toEqual(passes);
    expect(await attempt(s, method, { 'x-csrf-token': 'wrong' })).toEqual(passes);
  });

  it('to a request without a session (nothing to forge), with no event', async () => {
    const fixture = makeSessions();
    const req = request({ method: 'POST', headers: { 'sec-fetch-site': 'cross-site' } });
    expect(await fixture.sessions.attempt(req)).toEqual({ kind: 'anonymous' });
    expect(fixture.received).toEqual([]);
  });
});

describe('the csrf-rejected event', () => {
  it('names the user, the reason and the request, never the token', async () => {
    const s = await session();
    const req = request({
      method: 'POST',
      url: '/api/transfer?x=1',
      cookie: s.cookie,
      headers: { origin: 'https://evil.example', 'x-csrf-token': s.token },
    });
    expect(await s.fixture.sessions.attempt(req)).toEqual({
      kind: 'refused',
      status: 403,
      reason: 'csrf',
    });
    expect(s.fixture.received).toEqual([
      {
        type: 'csrf-rejected',
        username: 'alice',
        reason: 'untrusted-origin',
        request: { method: 'POST', path: '/api/transfer', clientAddress: '127.0.0.1' },
      },
    ]);
    expect(JSON.stringify(s.fixture.received)).not.toContain(s.token);
  });
});
