import { afterEach, describe, expect, it } from 'vitest';
import type { User } from '../../src/index.js';
import {
  callback,
  CookieJar,
  GOOD_CODE,
  type Harness,
  HARNESS_KINDS,
  harnessOf,
  makeFixture,
  startLogin,
} from './routes-support.js';

describe.each(HARNESS_KINDS)('an OAuth2 user mapper that never settles (%s)', (kind) => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('answers the callback 503 with Retry-After at mapperTimeoutMs, logs nobody in, no hang', async () => {
    const fixture = makeFixture({
      mapper: () => new Promise<User>(() => undefined),
      mapperTimeoutMs: 100,
    });
    harness = await harnessOf(kind, fixture.login);
    const jar = new CookieJar();
    const { state } = await startLogin(harness, jar);
    const before = fixture.received.length;
    const started = performance.now();
    const reply = await callback(harness, jar, 'google', `code=${GOOD_CODE}&state=${state}`);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe('5');
    expect(reply.setCookies.some((c) => c.startsWith('__Host-session='))).toBe(false);
    expect(fixture.received.slice(before)).toEqual([
      expect.objectContaining({
        type: 'deadline-exceeded',
        operation: 'oauth2-mapper',
        timeoutMs: 100,
      }),
    ]);
  });
});
