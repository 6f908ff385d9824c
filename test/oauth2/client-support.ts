/** What the OAuth2 client tests share: the harness's test client, the refusals. */
import { expect } from 'vitest';
import {
  OAuth2Config,
  OAuth2Error,
  OAuth2Provider,
  type OAuth2ErrorCode,
} from '../../src/oauth2/index.js';
import { TEST_CLIENT_ID, TEST_CLIENT_SECRET, TEST_REDIRECT_URI } from './provider-harness.js';

/** Another client than the harness's test client, or the same with other details. */
export interface HarnessClientOverrides {
  readonly clientId?: string;
  readonly secret?: string;
  readonly redirectUri?: string;
  /** The provider's name (`oidc`'s default when absent). */
  readonly name?: string;
}

/**
 * The configuration of a client registered at the provider harness: the test
 * client unless `overrides` says otherwise, its provider found by OpenID
 * discovery at `issuer`.
 */
export function harnessClientConfig(
  issuer: string,
  overrides: HarnessClientOverrides = {},
): OAuth2Config {
  return new OAuth2Config(
    overrides.clientId ?? TEST_CLIENT_ID,
    overrides.secret ?? TEST_CLIENT_SECRET,
    overrides.redirectUri ?? TEST_REDIRECT_URI,
  ).provider(
    OAuth2Provider.oidc(
      overrides.name === undefined ? { issuer } : { issuer, name: overrides.name },
    ),
  );
}

/**
 * The {@link OAuth2Error} a promise rejects with, with the `code` given (fails the
 * test when it resolves, or rejects with anything else).
 */
export async function oauth2Failure(
  promise: Promise<unknown>,
  code?: OAuth2ErrorCode,
): Promise<OAuth2Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OAuth2Error);
  if (code !== undefined) expect((error as OAuth2Error).code).toBe(code);
  return error as OAuth2Error;
}
