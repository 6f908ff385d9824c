import { expect } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { SecurityHeaders } from '../../src/headers/index.js';

/** Builds with untyped options (as plain JavaScript or a config file would) and returns the error. */
export function rejection(options: unknown): ConfigurationError {
  try {
    new SecurityHeaders(options as never);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as ConfigurationError).code).toBe('ERR_INVALID_OPTION');
    return error as ConfigurationError;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
}

/** Options with only a CSP of these directives (and more CSP options). */
export const csp = (directives: unknown, more: object = {}): object => ({
  contentSecurityPolicy: { directives, ...more },
});
