import { describe, expect, it } from 'vitest';
import { SecurityHeaders, type SecurityHeadersOptions } from '../../src/headers/index.js';

function header(options: SecurityHeadersOptions, name: string): string | undefined {
  return new Map(new SecurityHeaders(options).headers).get(name);
}

describe('each header option', () => {
  it.each([
    [{ strictTransportSecurity: { maxAge: 600 } }, 'max-age=600; includeSubDomains'],
    [{ strictTransportSecurity: { includeSubDomains: false } }, 'max-age=31536000'],
    [
      { strictTransportSecurity: { maxAge: 31_536_000, preload: true } },
      'max-age=31536000; includeSubDomains; preload',
    ],
    [{ strictTransportSecurity: true }, 'max-age=31536000; includeSubDomains'],
    [{ strictTransportSecurity: {} }, 'max-age=31536000; includeSubDomains'],
  ] as const)('strictTransportSecurity %j', (options, expected) => {
    expect(header(options, 'strict-transport-security')).toBe(expected);
  });

  it.each([
    [{ policy: 'strict-origin-when-cross-origin' }, 'strict-origin-when-cross-origin'],
    [
      { policy: ['no-referrer', 'strict-origin-when-cross-origin'] },
      'no-referrer,strict-origin-when-cross-origin',
    ],
    [{}, 'no-referrer'],
  ] as const)('referrerPolicy %j', (referrerPolicy, expected) => {
    expect(header({ referrerPolicy }, 'referrer-policy')).toBe(expected);
  });

  it.each([
    ['deny', 'DENY'],
    ['sameorigin', 'SAMEORIGIN'],
    ['DENY', 'DENY'],
    ['same-origin', 'SAMEORIGIN'],
  ])('xFrameOptions action %s', (action, expected) => {
    expect(header({ xFrameOptions: { action: action as 'deny' } }, 'x-frame-options')).toBe(
      expected,
    );
  });

  it('sends Cross-Origin-Embedder-Policy only when asked (off by default as in helmet 8)', () => {
    expect(header({}, 'cross-origin-embedder-policy')).toBeUndefined();
    expect(header({ crossOriginEmbedderPolicy: true }, 'cross-origin-embedder-policy')).toBe(
      'require-corp',
    );
    expect(
      header(
        { crossOriginEmbedderPolicy: { policy: 'credentialless' } },
        'cross-origin-embedder-policy',
      ),
    ).toBe('credentialless');
  });

  it('takes the cross-origin policies and the other options', () => {
    expect(
      header(
        { crossOriginOpenerPolicy: { policy: 'noopener-allow-popups' } },
        'cross-origin-opener-policy',
      ),
    ).toBe('noopener-allow-popups');
    expect(
      header(
        { crossOriginResourcePolicy: { policy: 'same-site' } },
        'cross-origin-resource-policy',
      ),
    ).toBe('same-site');
    expect(
      header(
        { xPermittedCrossDomainPolicies: { permittedPolicies: 'master-only' } },
        'x-permitted-cross-domain-policies',
      ),
    ).toBe('master-only');
    expect(header({ xDnsPrefetchControl: { allow: true } }, 'x-dns-prefetch-control')).toBe('on');
    expect(header({ xDnsPrefetchControl: { allow: false } }, 'x-dns-prefetch-control')).toBe('off');
  });

  it.each([
    ['contentSecurityPolicy', 'content-security-policy'],
    ['crossOriginOpenerPolicy', 'cross-origin-opener-policy'],
    ['crossOriginResourcePolicy', 'cross-origin-resource-policy'],
    ['originAgentCluster', 'origin-agent-cluster'],
    ['referrerPolicy', 'referrer-policy'],
    ['strictTransportSecurity', 'strict-transport-security'],
    ['xContentTypeOptions', 'x-content-type-options'],
    ['xDnsPrefetchControl', 'x-dns-prefetch-control'],
    ['xDownloadOptions', 'x-download-options'],
    ['xFrameOptions', 'x-frame-options'],
    ['xPermittedCrossDomainPolicies', 'x-permitted-cross-domain-policies'],
    ['xXssProtection', 'x-xss-protection'],
  ] as const)('%s: false switches %s off and leaves the others', (option, name) => {
    const all = new SecurityHeaders().headers.map(([n]) => n);
    const names = new SecurityHeaders({ [option]: false }).headers.map(([n]) => n);
    expect(all).toContain(name);
    expect(names).toEqual(all.filter((n) => n !== name));
  });

  it('removes X-Powered-By unless xPoweredBy is false', () => {
    expect(new SecurityHeaders().removed).toEqual(['x-powered-by']);
    expect(new SecurityHeaders({ xPoweredBy: true }).removed).toEqual(['x-powered-by']);
    expect(new SecurityHeaders({ xPoweredBy: false }).removed).toEqual([]);
  });

  it('adds additionalHeaders with lower-case names', () => {
    const sh = new SecurityHeaders({
      additionalHeaders: { 'Permissions-Policy': 'camera=(), microphone=()' },
    });
    expect(sh.headers.at(-1)).toEqual(['permissions-policy', 'camera=(), microphone=()']);
  });
});

describe('Cache-Control for authenticated responses', () => {
  it('is no-store by default, only for authenticated requests whose handler set none', () => {
    const sh = new SecurityHeaders();
    expect(sh.cacheControl).toBe('no-store');
    expect(sh.cacheControlFor(true, false)).toBe('no-store');
    expect(sh.cacheControlFor(true, true)).toBeUndefined();
    expect(sh.cacheControlFor(false, false)).toBeUndefined();
    expect(sh.headers.map(([name]) => name)).not.toContain('cache-control');
  });

  it('takes a value of its own, or is switched off', () => {
    const custom = new SecurityHeaders({ cacheControl: 'private, no-store, max-age=0' });
    expect(custom.cacheControlFor(true, false)).toBe('private, no-store, max-age=0');
    expect(new SecurityHeaders({ cacheControl: true }).cacheControl).toBe('no-store');
    const off = new SecurityHeaders({ cacheControl: false });
    expect(off.cacheControl).toBeUndefined();
    expect(off.cacheControlFor(true, false)).toBeUndefined();
  });
});

describe('precomputation and immutability', () => {
  it('computes the headers once: forRequest returns the same object and array', () => {
    const sh = new SecurityHeaders();
    const result = sh.forRequest();
    expect(sh.forRequest()).toBe(result);
    expect(result.headers).toBe(sh.headers);
  });

  it('freezes what it shares between requests', () => {
    const sh = new SecurityHeaders();
    expect(Object.isFrozen(sh)).toBe(true);
    expect(Object.isFrozen(sh.headers)).toBe(true);
    expect(sh.headers.every((entry) => Object.isFrozen(entry))).toBe(true);
    expect(Object.isFrozen(sh.removed)).toBe(true);
    expect(Object.isFrozen(sh.forRequest())).toBe(true);
    expect(() => {
      (sh.headers as [string, string][]).push(['x-evil', '1']);
    }).toThrow(TypeError);
  });

  it('never mutates the caller’s options', () => {
    const options = {
      strictTransportSecurity: { maxAge: 600 },
      referrerPolicy: { policy: ['origin', 'same-origin'] as ('origin' | 'same-origin')[] },
      contentSecurityPolicy: { directives: { scriptSrc: ["'self'", SecurityHeaders.nonce] } },
    };
    const before = structuredClone({ ...options, contentSecurityPolicy: undefined });
    const directives = options.contentSecurityPolicy.directives;
    new SecurityHeaders(options);
    expect({ ...options, contentSecurityPolicy: undefined }).toEqual(before);
    expect(options.contentSecurityPolicy.directives).toBe(directives);
    expect(directives.scriptSrc).toEqual(["'self'", SecurityHeaders.nonce]);
    expect(Object.isFrozen(options)).toBe(false);
  });
});
