import { describe, expect, it } from 'vitest';
import { csp, rejection } from './reject.js';

describe('header injection through option values is refused', () => {
  const payloads = [
    "'self'\r\nSet-Cookie: session=attacker",
    "'self'\nX-Injected: 1",
    "'self'\rX-Injected: 1",
    "'self'\u0000",
    "'self'\tdata:",
    "'self' \u2028data:",
    "'self' https://é.example",
  ];

  it.each(payloads)('in a CSP source %j', (payload) => {
    expect(rejection(csp({ scriptSrc: [payload] })).option).toBe(
      'contentSecurityPolicy.directives.scriptSrc',
    );
    expect(rejection(csp({ scriptSrc: payload })).option).toBe(
      'contentSecurityPolicy.directives.scriptSrc',
    );
  });

  it.each(payloads)('in cacheControl and additionalHeaders %j', (payload) => {
    expect(rejection({ cacheControl: payload }).option).toBe('cacheControl');
    expect(rejection({ additionalHeaders: { 'permissions-policy': payload } }).option).toBe(
      'additionalHeaders.permissions-policy',
    );
  });

  it('in header names, enum values and option names', () => {
    expect(rejection({ additionalHeaders: { 'x-a\r\nset-cookie': 'a=b' } }).option).toBe(
      'additionalHeaders["x-a\\r\\nset-cookie"]',
    );
    expect(rejection({ xFrameOptions: { action: 'DENY\r\nSet-Cookie: a=b' } }).option).toBe(
      'xFrameOptions.action',
    );
    expect(rejection({ referrerPolicy: { policy: 'origin\r\nX: 1' } }).option).toBe(
      'referrerPolicy.policy',
    );
    expect(rejection(csp({ 'script-src\r\nx': ["'self'"] })).option).toBe(
      'contentSecurityPolicy.directives["script-src\\r\\nx"]',
    );
    expect(rejection({ 'x\r\ny': true }).option).toBe('options["x\\r\\ny"]');
  });

  it('of another directive or policy with ";" or ","', () => {
    expect(rejection(csp({ scriptSrc: ["'self'; script-src *"] })).option).toBe(
      'contentSecurityPolicy.directives.scriptSrc',
    );
    expect(rejection(csp({ imgSrc: ['https://a.example, script-src *'] })).option).toBe(
      'contentSecurityPolicy.directives.imgSrc',
    );
  });

  it('never echoes a refused value in the message', () => {
    const error = rejection({ cacheControl: 'no-store\r\nSet-Cookie: secret-session-id' });
    expect(error.message).not.toContain('secret-session-id');
  });
});
