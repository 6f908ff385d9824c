import { describe, expect, it } from 'vitest';
import { SecurityHeaders, type ContentSecurityPolicyOptions } from '../../src/headers/index.js';

function csp(options: ContentSecurityPolicyOptions): Record<string, string> {
  const sh = new SecurityHeaders({ contentSecurityPolicy: options });
  return Object.fromEntries(sh.forRequest().headers);
}

function policyOf(options: ContentSecurityPolicyOptions): string | undefined {
  return csp(options)['content-security-policy'];
}

const DEFAULTS =
  "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests";

describe('the CSP builder', () => {
  it('gives helmet’s defaults for true and for an empty options object', () => {
    expect(
      Object.fromEntries(new SecurityHeaders({ contentSecurityPolicy: true }).headers),
    ).toEqual(expect.objectContaining({ 'content-security-policy': DEFAULTS }));
    expect(policyOf({})).toBe(DEFAULTS);
  });

  it('accepts camelCase and kebab-case names, replacing a default in place and appending new ones', () => {
    expect(
      policyOf({
        useDefaults: true,
        directives: {
          scriptSrc: ["'self'", 'https://cdn.example.com'],
          'connect-src': ["'self'", 'wss://live.example.com'],
          scriptSrcElem: ["'self'"],
        },
      }),
    ).toBe(
      DEFAULTS.replace("script-src 'self';", "script-src 'self' https://cdn.example.com;") +
        ";connect-src 'self' wss://live.example.com;script-src-elem 'self'",
    );
  });

  it('builds only the given directives without the defaults', () => {
    expect(
      policyOf({
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], imgSrc: "'self' data:", sandbox: [] },
      }),
    ).toBe("default-src 'none';img-src 'self' data:;sandbox");
  });

  it('drops a default directive set to null', () => {
    const policy = policyOf({ directives: { upgradeInsecureRequests: null, objectSrc: null } });
    expect(policy).not.toContain('upgrade-insecure-requests');
    expect(policy).not.toContain('object-src');
    expect(policy).toContain("default-src 'self'");
  });

  it('accepts Sets, hash sources, quoted keywords in any case and unknown future directives', () => {
    const hash = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='";
    expect(
      policyOf({
        useDefaults: false,
        directives: {
          defaultSrc: new Set(["'SELF'"]),
          scriptSrc: ["'strict-dynamic'", hash, "'report-sample'"],
          requireTrustedTypesFor: ["'script'"],
          someFutureDirective: ['value'],
        },
      }),
    ).toBe(
      `default-src 'SELF';script-src 'strict-dynamic' ${hash} 'report-sample';require-trusted-types-for 'script';some-future-directive value`,
    );
  });

  it('sends Content-Security-Policy-Report-Only with reportOnly', () => {
    const headers = csp({ reportOnly: true, directives: { reportUri: '/csp' } });
    expect(headers['content-security-policy']).toBeUndefined();
    expect(headers['content-security-policy-report-only']).toBe(`${DEFAULTS};report-uri /csp`);
  });

  it('sends no CSP when switched off', () => {
    const sh = new SecurityHeaders({ contentSecurityPolicy: false });
    expect(sh.headers.map(([name]) => name)).not.toContain('content-security-policy');
    expect(sh.usesNonce).toBe(false);
  });

  it('drops default-src only through dangerouslyDisableDefaultSrc', () => {
    const policy = policyOf({
      directives: { defaultSrc: SecurityHeaders.dangerouslyDisableDefaultSrc },
    });
    expect(policy).not.toContain('default-src');
    expect(policy).toContain("script-src 'self'");
  });

  it('does not read the caller’s options after construction', () => {
    const scriptSrc = ["'self'"];
    const options = { contentSecurityPolicy: { directives: { scriptSrc } } };
    const sh = new SecurityHeaders(options);
    scriptSrc.push('https://evil.example');
    options.contentSecurityPolicy.directives.scriptSrc = ['*'];
    expect(sh.forRequest().headers[0]?.[1]).toBe(DEFAULTS);
    expect(scriptSrc).toEqual(["'self'", 'https://evil.example']);
  });
});

describe('the per-request nonce', () => {
  const sh = new SecurityHeaders({
    contentSecurityPolicy: {
      directives: {
        scriptSrc: ["'self'", SecurityHeaders.nonce, "'strict-dynamic'"],
        styleSrcElem: [SecurityHeaders.nonce],
      },
    },
  });

  it('is 16 random bytes in base64, substituted as a nonce source wherever the placeholder is', () => {
    const { headers, nonce } = sh.forRequest();
    expect(sh.usesNonce).toBe(true);
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/u);
    expect(Buffer.from(nonce!, 'base64')).toHaveLength(16);
    const policy = Object.fromEntries(headers)['content-security-policy'];
    expect(policy).toBe(
      DEFAULTS.replace(
        "script-src 'self';",
        `script-src 'self' 'nonce-${nonce!}' 'strict-dynamic';`,
      ) + `;style-src-elem 'nonce-${nonce!}'`,
    );
  });

  it('is fresh for every request', () => {
    const first = sh.forRequest();
    const second = sh.forRequest();
    expect(first.nonce).not.toBe(second.nonce);
    expect(first.headers[0]?.[1]).toContain(`'nonce-${first.nonce!}'`);
    expect(second.headers[0]?.[1]).toContain(`'nonce-${second.nonce!}'`);
    expect(second.headers[0]?.[1]).not.toContain(first.nonce);
    const nonces = new Set(Array.from({ length: 2000 }, () => sh.forRequest().nonce));
    expect(nonces.size).toBe(2000);
  });

  it('keeps the static headers precomputed: the same entries follow the per-request CSP', () => {
    const { headers, removed } = sh.forRequest();
    expect(sh.headers.map(([name]) => name)).not.toContain('content-security-policy');
    expect(headers.length).toBe(sh.headers.length + 1);
    headers.slice(1).forEach((entry, i) => {
      expect(entry).toBe(sh.headers[i]);
    });
    expect(removed).toBe(sh.removed);
  });

  it('goes in the report-only header with reportOnly', () => {
    const reportOnly = new SecurityHeaders({
      contentSecurityPolicy: {
        reportOnly: true,
        directives: { scriptSrc: [SecurityHeaders.nonce] },
      },
    });
    const { headers, nonce } = reportOnly.forRequest();
    const byName = Object.fromEntries(headers);
    expect(byName['content-security-policy']).toBeUndefined();
    expect(byName['content-security-policy-report-only']).toContain(
      `script-src 'nonce-${nonce!}';`,
    );
  });

  it('can be written in a JSON configuration file', () => {
    const fromJson = new SecurityHeaders(
      JSON.parse(
        '{"contentSecurityPolicy":{"directives":{"scriptSrc":["\'self\'",{"cspPlaceholder":"nonce"}]}}}',
      ) as never,
    );
    const { headers, nonce } = fromJson.forRequest();
    expect(headers[0]?.[1]).toContain(`script-src 'self' 'nonce-${nonce!}';`);
  });

  it('is absent without the placeholder, and then forRequest allocates nothing', () => {
    const plain = new SecurityHeaders();
    const first = plain.forRequest();
    expect(first.nonce).toBeUndefined();
    expect(plain.usesNonce).toBe(false);
    expect(plain.forRequest()).toBe(first);
    expect(first.headers).toBe(plain.headers);
    expect(first.removed).toBe(plain.removed);
  });
});
