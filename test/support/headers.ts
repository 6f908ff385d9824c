import { expect } from 'vitest';

/** helmet 8's default headers, which every adapter must send. */
export const DEFAULT_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

/** Asserts the default security headers are on a response and X-Powered-By is not. */
export function expectDefaultHeaders(headers: Headers): void {
  for (const [name, value] of Object.entries(DEFAULT_HEADERS)) {
    expect(headers.get(name), name).toBe(value);
  }
  expect(headers.get('x-powered-by')).toBeNull();
}

export const NONCE_OPTIONS = {
  contentSecurityPolicy: { directives: { scriptSrc: ["'self'", { cspPlaceholder: 'nonce' }] } },
} as const;

/** The nonce in a CSP header, checked to be 16 bytes of base64. */
export function nonceOf(headers: Headers): string {
  const match = /'nonce-([A-Za-z0-9+/=]+)'/u.exec(headers.get('content-security-policy') ?? '');
  expect(match).not.toBeNull();
  const nonce = match![1]!;
  expect(Buffer.from(nonce, 'base64')).toHaveLength(16);
  return nonce;
}
