import { describe, expect, it } from 'vitest';
import { SecurityHeaders } from '../../src/headers/index.js';
import { csp, rejection } from './reject.js';

describe('invalid options throw ConfigurationError naming the option', () => {
  it.each([
    ['not an object', 'helmet', 'options'],
    ['an array', [], 'options'],
    ['an unknown top-level option', { xFrameOption: {} }, 'xFrameOption'],
    ['a top-level option in the wrong case', { HSTS: {} }, 'HSTS'],
    ['helmet’s legacy alias hsts', { hsts: { maxAge: 1 } }, 'hsts'],
    ['helmet’s legacy alias frameguard', { frameguard: { action: 'deny' } }, 'frameguard'],
    [
      'the maxage typo',
      { strictTransportSecurity: { maxage: 600 } },
      'strictTransportSecurity.maxage',
    ],
    [
      'the includeSubdomains typo',
      { strictTransportSecurity: { includeSubdomains: true } },
      'strictTransportSecurity.includeSubdomains',
    ],
    [
      'a negative maxAge',
      { strictTransportSecurity: { maxAge: -1 } },
      'strictTransportSecurity.maxAge',
    ],
    [
      'a fractional maxAge',
      { strictTransportSecurity: { maxAge: 1.5 } },
      'strictTransportSecurity.maxAge',
    ],
    [
      'a string maxAge',
      { strictTransportSecurity: { maxAge: '600' } },
      'strictTransportSecurity.maxAge',
    ],
    [
      'preload with maxAge under a year',
      { strictTransportSecurity: { maxAge: 86_400, preload: true } },
      'strictTransportSecurity.preload',
    ],
    [
      'preload without includeSubDomains',
      { strictTransportSecurity: { includeSubDomains: false, preload: true } },
      'strictTransportSecurity.preload',
    ],
    [
      'a non-boolean preload',
      { strictTransportSecurity: { preload: 'yes' } },
      'strictTransportSecurity.preload',
    ],
    [
      'an unknown referrer token',
      { referrerPolicy: { policy: 'no-referer' } },
      'referrerPolicy.policy',
    ],
    ['an empty referrer list', { referrerPolicy: { policy: [] } }, 'referrerPolicy.policy'],
    ['an empty referrer token', { referrerPolicy: { policy: '' } }, 'referrerPolicy.policy'],
    [
      'a duplicate referrer token',
      { referrerPolicy: { policy: ['origin', 'origin'] } },
      'referrerPolicy.policy',
    ],
    ['a referrer policy given as a string', { referrerPolicy: 'origin' }, 'referrerPolicy'],
    ['an unknown frame action', { xFrameOptions: { action: 'none' } }, 'xFrameOptions.action'],
    [
      'the obsolete ALLOW-FROM',
      { xFrameOptions: { action: 'ALLOW-FROM' } },
      'xFrameOptions.action',
    ],
    [
      'an unknown COOP policy',
      { crossOriginOpenerPolicy: { policy: 'same-site' } },
      'crossOriginOpenerPolicy.policy',
    ],
    [
      'an unknown CORP policy',
      { crossOriginResourcePolicy: { policy: 'none' } },
      'crossOriginResourcePolicy.policy',
    ],
    [
      'an unknown COEP policy',
      { crossOriginEmbedderPolicy: { policy: 'require-corps' } },
      'crossOriginEmbedderPolicy.policy',
    ],
    [
      'an unknown permitted policy',
      { xPermittedCrossDomainPolicies: { permittedPolicies: 'any' } },
      'xPermittedCrossDomainPolicies.permittedPolicies',
    ],
    ['a non-boolean allow', { xDnsPrefetchControl: { allow: 'on' } }, 'xDnsPrefetchControl.allow'],
    [
      'options for a header that takes none',
      { originAgentCluster: { value: '?0' } },
      'originAgentCluster',
    ],
    ['options for X-Content-Type-Options', { xContentTypeOptions: {} }, 'xContentTypeOptions'],
    ['a non-boolean xPoweredBy', { xPoweredBy: 'hide' }, 'xPoweredBy'],
    ['an empty cacheControl', { cacheControl: '' }, 'cacheControl'],
    ['a numeric cacheControl', { cacheControl: 0 }, 'cacheControl'],
    [
      'an unknown CSP option',
      { contentSecurityPolicy: { directive: {} } },
      'contentSecurityPolicy.directive',
    ],
    [
      'a non-boolean reportOnly',
      { contentSecurityPolicy: { reportOnly: 1 } },
      'contentSecurityPolicy.reportOnly',
    ],
    ['directives as an array', csp([]), 'contentSecurityPolicy.directives'],
    [
      'the unquoted keyword self',
      csp({ scriptSrc: ['self'] }),
      'contentSecurityPolicy.directives.scriptSrc',
    ],
    [
      'the unquoted keyword none',
      csp({ objectSrc: 'none' }),
      'contentSecurityPolicy.directives.objectSrc',
    ],
    [
      'an unquoted unsafe-inline',
      csp({ 'style-src': ["'self'", 'unsafe-inline'] }),
      'contentSecurityPolicy.directives.style-src',
    ],
    [
      'an unquoted hash',
      csp({ scriptSrc: ['sha256-abc='] }),
      'contentSecurityPolicy.directives.scriptSrc',
    ],
    [
      'a mistyped keyword',
      csp({ scriptSrc: ["'unsafe_inline'"] }),
      'contentSecurityPolicy.directives.scriptSrc',
    ],
    [
      'unbalanced quotes',
      csp({ scriptSrc: ["'self"] }),
      'contentSecurityPolicy.directives.scriptSrc',
    ],
    [
      'an invalid hash',
      csp({ scriptSrc: ["'sha256-not base64!'"] }),
      'contentSecurityPolicy.directives.scriptSrc',
    ],
    [
      'a fixed nonce',
      csp({ scriptSrc: ["'nonce-abc123'"] }),
      'contentSecurityPolicy.directives.scriptSrc',
    ],
    [
      "'none' with other sources",
      csp({ objectSrc: ["'none'", 'https:'] }),
      'contentSecurityPolicy.directives.objectSrc',
    ],
    [
      'a mistyped directive name',
      csp({ imgScr: ["'self'"] }),
      'contentSecurityPolicy.directives.imgScr',
    ],
    [
      'a directive with a typo in kebab-case',
      csp({ 'script-scr': ["'self'"] }),
      'contentSecurityPolicy.directives.script-scr',
    ],
    [
      'an invalid directive name',
      csp({ 'Script-Src': ["'self'"] }),
      'contentSecurityPolicy.directives.Script-Src',
    ],
    [
      'a directive given twice',
      csp({ scriptSrc: ["'self'"], 'script-src': ["'none'"] }),
      'contentSecurityPolicy.directives.script-src',
    ],
    [
      'a number as a directive value',
      csp({ scriptSrc: 1 }),
      'contentSecurityPolicy.directives.scriptSrc',
    ],
    [
      'a function source (helmet’s dynamic form)',
      csp({ scriptSrc: [() => "'self'"] }),
      'contentSecurityPolicy.directives.scriptSrc',
    ],
    ['an empty source', csp({ scriptSrc: [''] }), 'contentSecurityPolicy.directives.scriptSrc'],
    [
      'default-src set to null',
      csp({ defaultSrc: null }),
      'contentSecurityPolicy.directives.defaultSrc',
    ],
    [
      'dangerouslyDisableDefaultSrc on another directive',
      csp({ scriptSrc: SecurityHeaders.dangerouslyDisableDefaultSrc }),
      'contentSecurityPolicy.directives.scriptSrc',
    ],
    [
      'a policy without default-src',
      csp({ scriptSrc: ["'self'"] }, { useDefaults: false }),
      'contentSecurityPolicy.directives',
    ],
    ['an empty policy', csp({}, { useDefaults: false }), 'contentSecurityPolicy.directives'],
    [
      'the nonce where it does nothing',
      csp({ imgSrc: [SecurityHeaders.nonce] }),
      'contentSecurityPolicy.directives.imgSrc',
    ],
    [
      'the nonce twice in a directive',
      csp({ scriptSrc: [SecurityHeaders.nonce, SecurityHeaders.nonce] }),
      'contentSecurityPolicy.directives.scriptSrc',
    ],
    [
      'the nonce with none',
      csp({ scriptSrc: ["'none'", SecurityHeaders.nonce] }),
      'contentSecurityPolicy.directives.scriptSrc',
    ],
    [
      'an additional header managed by an option',
      { additionalHeaders: { 'X-Frame-Options': 'DENY' } },
      'additionalHeaders.X-Frame-Options',
    ],
    [
      'an additional Cache-Control',
      { additionalHeaders: { 'cache-control': 'public' } },
      'additionalHeaders.cache-control',
    ],
    [
      'an additional Set-Cookie',
      { additionalHeaders: { 'set-cookie': 'a=b' } },
      'additionalHeaders.set-cookie',
    ],
    [
      'an additional header twice',
      { additionalHeaders: { 'x-a': '1', 'X-A': '2' } },
      'additionalHeaders.X-A',
    ],
    [
      'an additional header with a bad name',
      { additionalHeaders: { 'x a': '1' } },
      'additionalHeaders["x a"]',
    ],
    ['a non-string additional value', { additionalHeaders: { 'x-a': 1 } }, 'additionalHeaders.x-a'],
  ])('%s', (_, options, option) => {
    expect(rejection(options).option).toBe(option);
  });

  it('suggests the intended name for typos', () => {
    expect(rejection({ strictTransportSecurity: { maxage: 1 } }).message).toContain('"maxAge"');
    expect(rejection({ strictTransportSecurity: { includeSubdomains: true } }).message).toContain(
      '"includeSubDomains"',
    );
    expect(rejection({ contentSecurityPolicy: { reportonly: true } }).message).toContain(
      '"reportOnly"',
    );
    expect(rejection({ contentSecurityPolicies: {} }).message).toContain('"contentSecurityPolicy"');
    expect(rejection({ hsts: {} }).message).toContain('strictTransportSecurity');
    expect(rejection(csp({ imgScr: [] })).message).toContain('"img-src"');
    expect(rejection(csp({ scriptSrc: ['self'] })).message).toContain(`"'self'"`);
  });
});
