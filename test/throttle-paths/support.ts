/** A site protected by HTTP Basic with a login throttle on a manual clock, for the throttle tests. */
import { vi } from 'vitest';
import {
  Access,
  AuthorizationManager,
  RepositoryAuthenticator,
  SecurityTransform,
  User,
  type SecurityEvent,
  type SecurityEvents,
} from '../../src/index.js';
import { LoginThrottle, type LoginThrottleOptions } from '../../src/throttle/index.js';
import { MemoryUserRepository } from '../../src/users/index.js';
import { TestEncoder } from '../authentication/helpers.js';
import { testClock, type TestClock } from '../support/clock.js';
import { recordEvents } from '../support/events.js';

export { basic } from '../support/server.js';
export { testClock, type TestClock };

/** alice's password. */
export const ALICE_PASSWORD = 'wonderland';

/** Everything a throttle test looks at: the encoder's and the repository's calls, the events, the clock. */
export interface Site {
  readonly encoder: TestEncoder;
  readonly users: MemoryUserRepository;
  /** How many times the repository was asked for a user. */
  readonly lookups: () => number;
  readonly clock: TestClock;
  readonly events: SecurityEvents;
  readonly received: SecurityEvent[];
  readonly throttle: LoginThrottle;
  readonly authenticator: RepositoryAuthenticator;
  /** `/private` needs a user (HTTP Basic), the rest is public. */
  readonly transform: SecurityTransform;
}

/**
 * A repository of alice (and bob), a counting HMAC encoder, a `LoginThrottle` on a
 * manual clock with `throttleOptions`, and the transform over them.
 */
export function makeSite(throttleOptions: LoginThrottleOptions = {}): Site {
  const encoder = new TestEncoder();
  const users = new MemoryUserRepository([
    new User('alice', encoder.hash(ALICE_PASSWORD), ['USER']),
    new User('bob', encoder.hash('builder'), ['USER']),
  ]);
  const lookups = vi.spyOn(users, 'findByUsername');
  const clock = testClock();
  const { events, received } = recordEvents();
  const throttle = new LoginThrottle({ clock: clock.now, events, ...throttleOptions });
  const authenticator = new RepositoryAuthenticator({
    users,
    passwordEncoder: encoder,
    events,
    throttle,
  });
  const transform = new SecurityTransform({ events })
    .configAuthenticator(() => authenticator)
    .configAuthorizer(() =>
      AuthorizationManager.requestMatcher()
        .httpBasic()
        .addMatcher('/private', new Access().authenticated())
        .anyRequest(Access.permitAll()),
    );
  return {
    encoder,
    users,
    lookups: () => lookups.mock.calls.length,
    clock,
    events,
    received,
    throttle,
    authenticator,
    transform,
  };
}

/** The `throttled` events received, as `scope` names. */
export function throttledScopes(received: readonly SecurityEvent[]): string[] {
  return received.flatMap((event) => (event.type === 'throttled' ? [event.scope] : []));
}

/** One minute, the first delay. */
export const MINUTE = 60_000;
