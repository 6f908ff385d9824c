import { ConfigurationError } from './errors.js';
import type { AuthenticationOutcome } from './outcome.js';

/**
 * Reads a `debug` option: a boolean, and never `true` in a process started with
 * `NODE_ENV=production`. Debug mode explains decisions in events (and, for the tRPC
 * guards and GraphQL directives, in denial messages that clients see); a
 * configuration that turns it on from an environment variable left set in
 * production fails at start-up instead of explaining the rules to everyone.
 *
 * @internal
 */
export function debugOption(value: unknown, owner = 'debug'): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new ConfigurationError(owner, 'must be a boolean');
  if (value) {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
      ?.env;
    if (env?.['NODE_ENV'] === 'production') {
      throw new ConfigurationError(
        owner,
        'is refused with NODE_ENV=production: debug mode explains the rules (in events, and in ' +
          'the denial messages of the tRPC guards and GraphQL directives); turn it on in development only',
      );
    }
  }
  return value;
}

/**
 * How an authentication ended, for debug events: `authenticated (basic)`,
 * `anonymous`, `failed: invalid-token`, `refused: csrf`. Never a credential.
 *
 * @internal
 */
export function describeAuthentication(outcome: AuthenticationOutcome): string {
  switch (outcome.kind) {
    case 'authenticated':
      return `authenticated (${outcome.user.authenticationMethod})`;
    case 'anonymous':
      return 'anonymous';
    case 'failed':
      return `failed: ${outcome.reason}`;
    case 'refused':
      return `refused: ${outcome.reason}`;
  }
}
