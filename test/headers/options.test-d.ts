import { expectTypeOf, test } from 'vitest';
import {
  SecurityHeaders,
  type CspDirectives,
  type HeaderEntry,
  type SecurityHeadersForRequest,
  type SecurityHeadersOptions,
} from '../../src/headers/index.js';

test('options are typed per header', () => {
  expectTypeOf<{ xFrameOptions: { action: 'deny' } }>().toExtend<SecurityHeadersOptions>();
  expectTypeOf<{
    xFrameOptions: { action: 'allow-from' };
  }>().not.toExtend<SecurityHeadersOptions>();
  expectTypeOf<{
    referrerPolicy: { policy: ['origin', 'unsafe-url'] };
  }>().toExtend<SecurityHeadersOptions>();
  expectTypeOf<{
    referrerPolicy: { policy: 'no-referer' };
  }>().not.toExtend<SecurityHeadersOptions>();
  expectTypeOf<{
    strictTransportSecurity: { maxAge: 1; preload: true };
  }>().toExtend<SecurityHeadersOptions>();
  expectTypeOf<{
    strictTransportSecurity: { maxAge: '1' };
  }>().not.toExtend<SecurityHeadersOptions>();
  expectTypeOf<{ originAgentCluster: { x: 1 } }>().not.toExtend<SecurityHeadersOptions>();
});

test('CSP directives take camelCase and kebab-case names, the nonce and null', () => {
  expectTypeOf({
    scriptSrc: ["'self'", SecurityHeaders.nonce],
    'style-src': "'self'",
    objectSrc: null,
    defaultSrc: SecurityHeaders.dangerouslyDisableDefaultSrc,
  }).toExtend<CspDirectives>();
  expectTypeOf({ scriptSrc: [1] }).not.toExtend<CspDirectives>();
});

test('the per-request result', () => {
  const sh = new SecurityHeaders();
  expectTypeOf(sh.forRequest()).toEqualTypeOf<SecurityHeadersForRequest>();
  expectTypeOf(sh.forRequest().nonce).toEqualTypeOf<string | undefined>();
  expectTypeOf(sh.headers).toEqualTypeOf<readonly HeaderEntry[]>();
  expectTypeOf(sh.cacheControlFor(true, false)).toEqualTypeOf<string | undefined>();
});
