/**
 * An authorizer that refuses for now — a rate limit reached, a store down — by
 * throwing an `UnavailableError` at once (a synchronous authorizer) gets the same
 * answer as one that rejects: 429 or 503 with `Retry-After`, never an exception out
 * of the pipeline (which an adapter would turn into a 500).
 */
import { describe, expect, it } from 'vitest';
import {
  SecurityTransform,
  StoreUnavailableError,
  TooManyRequestsError,
  createSecurityRequest,
  type Authorizer,
  type SecurityOutcome,
} from '../../src/index.js';

const request = createSecurityRequest({
  method: 'GET',
  url: '/search',
  header: () => undefined,
  clientAddress: '203.0.113.9',
});

function through(error: Error, asynchronous: boolean): SecurityOutcome | Promise<SecurityOutcome> {
  const authorizer: Authorizer = {
    authorize: () => {
      if (asynchronous) return Promise.reject(error);
      throw error;
    },
  };
  return new SecurityTransform({ authorizer }).handle(request);
}

describe('SecurityTransform: an authorizer refusing for now', () => {
  for (const asynchronous of [false, true]) {
    const how = asynchronous ? 'rejecting' : 'throwing';
    it(`${how} a TooManyRequestsError: 429 with Retry-After`, async () => {
      const outcome = await through(new TooManyRequestsError('search', 'user', 42), asynchronous);
      expect(outcome.proceed).toBe(false);
      if (outcome.proceed) return;
      expect(outcome.response.status).toBe(429);
      expect(outcome.response.headers['retry-after']).toBe('42');
    });

    it(`${how} a StoreUnavailableError: 503 with Retry-After`, async () => {
      const outcome = await through(
        new StoreUnavailableError('redis', 'throttle-hit'),
        asynchronous,
      );
      expect(outcome.proceed).toBe(false);
      if (outcome.proceed) return;
      expect(outcome.response.status).toBe(503);
      expect(outcome.response.headers['retry-after']).toBe('1');
    });
  }

  it('any other error still propagates (a bug, not a refusal)', () => {
    expect(() => through(new TypeError('bug'), false)).toThrow(TypeError);
  });
});
