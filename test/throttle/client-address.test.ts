import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import {
  ClientAddressResolver,
  addressKey,
  type ClientAddressOptions,
} from '../../src/throttle/index.js';
import { requestFrom } from './request.js';

const ATTACKER = '198.51.100.66';
const FORGED = '203.0.113.250';

function resolve(
  options: ClientAddressOptions,
  peer: string | undefined,
  headers: Record<string, string> = {},
): string | undefined {
  return new ClientAddressResolver(options).resolve(requestFrom(peer, headers));
}

describe('ClientAddressResolver without trusted proxies', () => {
  it('answers the socket address and ignores a forged X-Forwarded-For or Forwarded', () => {
    const forged = { 'x-forwarded-for': FORGED, forwarded: `for=${FORGED}` };
    for (const options of [{}, { trustedProxies: 0 }, { trustedProxies: [] }] as const) {
      expect(resolve(options, ATTACKER, forged)).toBe(ATTACKER);
      expect(resolve({ ...options, forwardedHeader: 'forwarded' }, ATTACKER, forged)).toBe(
        ATTACKER,
      );
    }
  });

  it('answers undefined without a socket address, and an unparsable one as it is', () => {
    expect(resolve({ trustedProxies: 1 }, undefined, { 'x-forwarded-for': FORGED })).toBe(
      undefined,
    );
    expect(resolve({}, 'unix:/tmp/socket')).toBe('unix:/tmp/socket');
  });

  it('reads an IPv4-mapped socket address as IPv4 and normalizes IPv6', () => {
    expect(resolve({}, '::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(resolve({}, '2001:0db8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
  });
});

describe('ClientAddressResolver with a hop count', () => {
  it('takes the address the one trusted proxy appended, whatever the client put left of it', () => {
    // The client sends "X-Forwarded-For: 203.0.113.250"; the proxy appends what it saw.
    const headers = { 'x-forwarded-for': `${FORGED}, 10.1.1.1, ${ATTACKER}` };
    expect(resolve({ trustedProxies: 1 }, '10.0.0.2', headers)).toBe(ATTACKER);
  });

  it('takes the second address from the right behind two proxies', () => {
    // client → CDN (appends the client) → load balancer (appends the CDN) → server
    const headers = { 'x-forwarded-for': `${FORGED},${FORGED}, ${ATTACKER} , 192.0.2.10` };
    expect(resolve({ trustedProxies: 2 }, '10.0.0.2', headers)).toBe(ATTACKER);
  });

  it('answers the socket address when the proxy sent no header, and the leftmost when too few', () => {
    expect(resolve({ trustedProxies: 1 }, '10.0.0.2')).toBe('10.0.0.2');
    expect(resolve({ trustedProxies: 1 }, '10.0.0.2', { 'x-forwarded-for': '' })).toBe('10.0.0.2');
    expect(resolve({ trustedProxies: 3 }, '10.0.0.2', { 'x-forwarded-for': ATTACKER })).toBe(
      ATTACKER,
    );
  });

  it('drops the port of an IPv4 entry and a bracketed IPv6 entry', () => {
    expect(
      resolve({ trustedProxies: 1 }, '10.0.0.2', { 'x-forwarded-for': `${ATTACKER}:4711` }),
    ).toBe(ATTACKER);
    expect(
      resolve({ trustedProxies: 1 }, '10.0.0.2', { 'x-forwarded-for': '[2001:db8::7]:4711' }),
    ).toBe('2001:db8::7');
  });

  it('reads an IPv4-mapped forwarded entry as IPv4', () => {
    expect(
      resolve({ trustedProxies: 1 }, '10.0.0.2', { 'x-forwarded-for': '::ffff:203.0.113.7' }),
    ).toBe('203.0.113.7');
  });
});

describe('ClientAddressResolver with a list of trusted ranges', () => {
  const proxies = { trustedProxies: ['10.0.0.0/8', '192.0.2.10'] };

  it('skips the trusted hops from the right; the first untrusted one is the client', () => {
    const headers = { 'x-forwarded-for': `${FORGED}, ${ATTACKER}, 10.9.9.9, 192.0.2.10` };
    expect(resolve(proxies, '10.0.0.2', headers)).toBe(ATTACKER);
  });

  it('never chooses an entry left of a real untrusted hop, even a trusted-looking one', () => {
    // The attacker writes a trusted proxy's address and a victim's to the left of its own.
    const headers = { 'x-forwarded-for': `${FORGED}, 10.0.0.99, ${ATTACKER}, 10.9.9.9` };
    expect(resolve(proxies, '10.0.0.2', headers)).toBe(ATTACKER);
  });

  it('ignores the header of a peer that is not a trusted proxy', () => {
    expect(resolve(proxies, ATTACKER, { 'x-forwarded-for': FORGED })).toBe(ATTACKER);
  });

  it('answers the last trusted hop when every hop is trusted', () => {
    expect(resolve(proxies, '10.0.0.2', { 'x-forwarded-for': '10.3.3.3, 10.4.4.4' })).toBe(
      '10.3.3.3',
    );
  });

  it('knows the named ranges loopback, uniquelocal and linklocal', () => {
    const via = (name: string, peer: string) =>
      resolve({ trustedProxies: [name] }, peer, { 'x-forwarded-for': `${FORGED}, ${ATTACKER}` });
    for (const peer of ['127.0.0.1', '127.8.0.1', '::1'])
      expect(via('loopback', peer)).toBe(ATTACKER);
    for (const peer of ['10.1.2.3', '172.16.0.1', '172.31.255.254', '192.168.1.1', 'fd00::1']) {
      expect(via('uniquelocal', peer)).toBe(ATTACKER);
    }
    for (const peer of ['169.254.169.254', 'fe80::1'])
      expect(via('linklocal', peer)).toBe(ATTACKER);
    // Outside the range: the peer itself.
    expect(via('loopback', '10.0.0.1')).toBe('10.0.0.1');
    expect(via('uniquelocal', '172.32.0.1')).toBe('172.32.0.1');
    expect(via('linklocal', '127.0.0.1')).toBe('127.0.0.1');
  });

  it('matches an IPv4-mapped peer against IPv4 ranges, and an IPv6 range', () => {
    const headers = { 'x-forwarded-for': ATTACKER };
    expect(resolve(proxies, '::ffff:10.0.0.2', headers)).toBe(ATTACKER);
    expect(resolve({ trustedProxies: ['2001:db8:f::/48'] }, '2001:db8:f::9', headers)).toBe(
      ATTACKER,
    );
    expect(resolve({ trustedProxies: ['2001:db8:f::/48'] }, '2001:db8:e::9', headers)).toBe(
      '2001:db8:e::9',
    );
  });

  it('matches a proxy configured in its IPv4-mapped form (as a dual-stack socket reports it)', () => {
    const headers = { 'x-forwarded-for': ATTACKER };
    for (const trusted of ['::ffff:10.0.0.2', '::ffff:10.0.0.0/104']) {
      expect(resolve({ trustedProxies: [trusted] }, '::ffff:10.0.0.2', headers)).toBe(ATTACKER);
      expect(resolve({ trustedProxies: [trusted] }, '10.0.0.2', headers)).toBe(ATTACKER);
      expect(resolve({ trustedProxies: [trusted] }, '172.16.0.2', headers)).toBe('172.16.0.2');
    }
  });

  it('never takes a malformed entry for the client: the walk stops at the last address', () => {
    for (const garbage of ['0x7f.1', '127.1', '', 'abc', '1.2.3.4.5', '999.1.1.1', 'unknown']) {
      const headers = { 'x-forwarded-for': `${FORGED}, ${garbage}, 10.7.7.7` };
      expect(resolve(proxies, '10.0.0.2', headers)).toBe('10.7.7.7');
      expect(resolve({ trustedProxies: 2 }, '10.0.0.2', headers)).toBe('10.7.7.7');
    }
  });
});

describe('ClientAddressResolver with RFC 7239 Forwarded', () => {
  const forwarded = { trustedProxies: 1, forwardedHeader: 'forwarded' } as const;

  it('reads the for= parameter of the last element', () => {
    const header = `for=${FORGED};proto=https, for=${ATTACKER};proto=https;by=10.0.0.2`;
    expect(resolve(forwarded, '10.0.0.2', { forwarded: header })).toBe(ATTACKER);
  });

  it('reads a quoted IPv6 address with a port, and a mixed-case parameter name', () => {
    expect(resolve(forwarded, '10.0.0.2', { forwarded: 'for="[2001:db8::1]:4711"' })).toBe(
      '2001:db8::1',
    );
    expect(resolve(forwarded, '10.0.0.2', { forwarded: `proto=http;For="${ATTACKER}:80"` })).toBe(
      ATTACKER,
    );
  });

  it('keeps a quoted comma or semicolon inside one element', () => {
    const header = `for=${FORGED}, by="a,b;c";for=${ATTACKER}`;
    expect(resolve(forwarded, '10.0.0.2', { forwarded: header })).toBe(ATTACKER);
  });

  it('stops at for=unknown, an obfuscated identifier or an element without for=', () => {
    for (const last of ['for=unknown', 'for=_hidden', 'for="_x:_y"', 'proto=https']) {
      const header = `for=${FORGED}, ${last}`;
      expect(resolve(forwarded, '10.0.0.2', { forwarded: header })).toBe('10.0.0.2');
      expect(
        resolve({ trustedProxies: ['10.0.0.0/8'], forwardedHeader: 'forwarded' }, '10.0.0.2', {
          forwarded: header,
        }),
      ).toBe('10.0.0.2');
    }
  });

  it('reads only the configured header; the other is the client’s to forge', () => {
    const both = { 'x-forwarded-for': FORGED, forwarded: `for=${ATTACKER}` };
    expect(resolve(forwarded, '10.0.0.2', both)).toBe(ATTACKER);
    expect(resolve({ trustedProxies: 1 }, '10.0.0.2', both)).toBe(FORGED);
    expect(resolve(forwarded, '10.0.0.2', { 'x-forwarded-for': FORGED })).toBe('10.0.0.2');
    expect(resolve({ trustedProxies: 1 }, '10.0.0.2', { forwarded: `for=${FORGED}` })).toBe(
      '10.0.0.2',
    );
  });
});

describe('ClientAddressResolver configuration', () => {
  it('refuses a bad hop count, range or header by the option name', () => {
    const bad: [ClientAddressOptions, string][] = [
      [{ trustedProxies: -1 }, 'trustedProxies'],
      [{ trustedProxies: 33 }, 'trustedProxies'],
      [{ trustedProxies: 1.5 }, 'trustedProxies'],
      [{ trustedProxies: Number.NaN }, 'trustedProxies'],
      [{ trustedProxies: ['10.0.0.0/33'] }, 'trustedProxies'],
      [{ trustedProxies: ['10.0.0.0/8', 'not-a-range'] }, 'trustedProxies'],
      [{ trustedProxies: ['2001:db8::/129'] }, 'trustedProxies'],
      // Non-canonical forms ipaddr.js would read as other addresses: '010.0.0.0/8' is 8.0.0.0/8 in octal.
      [{ trustedProxies: ['010.0.0.0/8'] }, 'trustedProxies'],
      [{ trustedProxies: ['0xa.0.0.0/8'] }, 'trustedProxies'],
      [{ trustedProxies: ['10.1/16'] }, 'trustedProxies'],
      [{ trustedProxies: ['127.1'] }, 'trustedProxies'],
      [{ trustedProxies: ['192.168.000.001'] }, 'trustedProxies'],
      [{ trustedProxies: [''] }, 'trustedProxies'],
      [{ trustedProxies: [10] as never }, 'trustedProxies'],
      [{ trustedProxies: '10.0.0.0/8' as never }, 'trustedProxies'],
      [{ trustedProxies: true as never }, 'trustedProxies'],
      [{ forwardedHeader: 'x-real-ip' as never }, 'forwardedHeader'],
    ];
    for (const [options, option] of bad) {
      let thrown: unknown;
      try {
        new ClientAddressResolver(options);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(options)).toBeInstanceOf(ConfigurationError);
      expect((thrown as ConfigurationError).option).toBe(option);
    }
  });

  it('says whether it trusts any proxy', () => {
    expect(new ClientAddressResolver().trustsProxies).toBe(false);
    expect(new ClientAddressResolver({ trustedProxies: [] }).trustsProxies).toBe(false);
    expect(new ClientAddressResolver({ trustedProxies: 1 }).trustsProxies).toBe(true);
    expect(new ClientAddressResolver({ trustedProxies: ['loopback'] }).trustsProxies).toBe(true);
  });
});

describe('ClientAddressResolver warning about an untrusted proxy', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const warnings = () => vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);

  it('warns once when a private-address peer sends X-Forwarded-For without trustedProxies', () => {
    const spy = warnings();
    const clients = new ClientAddressResolver();
    for (const peer of ['10.0.0.2', '127.0.0.1', '192.168.0.9', 'fd00::2']) {
      expect(clients.resolve(requestFrom(peer, { 'x-forwarded-for': FORGED }))).toBe(peer);
    }
    expect(spy).toHaveBeenCalledTimes(1);
    const [message, options] = spy.mock.calls[0] as [string, { code: string }];
    expect(options.code).toBe('PORTCULLIS_UNTRUSTED_PROXY');
    expect(message).not.toContain(FORGED);
  });

  it('does not warn for a public peer, a request without the header, or trusted proxies', () => {
    const spy = warnings();
    new ClientAddressResolver().resolve(requestFrom(ATTACKER, { 'x-forwarded-for': FORGED }));
    new ClientAddressResolver().resolve(requestFrom('10.0.0.2'));
    new ClientAddressResolver({ trustedProxies: 1 }).resolve(
      requestFrom('10.0.0.2', { 'x-forwarded-for': FORGED }),
    );
    new ClientAddressResolver({ forwardedHeader: 'forwarded' }).resolve(
      requestFrom('10.0.0.2', { 'x-forwarded-for': FORGED }),
    );
    expect(spy).not.toHaveBeenCalled();
  });
});

describe('addressKey', () => {
  it('keys IPv6 addresses by their /64', () => {
    const key = addressKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    for (const rotated of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2:dead:beef::9']) {
      expect(addressKey(rotated)).toBe(key);
    }
    expect(addressKey('2001:db8:1:3::1')).not.toBe(key);
    expect(addressKey('2001:db8:2:2::1')).not.toBe(key);
  });

  it('gives compressed and expanded forms of one address the same key', () => {
    expect(addressKey('2001:0DB8:0000:0000:0000:0000:0000:0001')).toBe(addressKey('2001:db8::1'));
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  });

  it('keeps IPv4 as it is, IPv4-mapped as IPv4, and anything else unchanged', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('203.0.113.8')).not.toBe(addressKey('203.0.113.7'));
    expect(addressKey('unix:/tmp/socket')).toBe('unix:/tmp/socket');
  });
});
