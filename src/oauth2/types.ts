/**
 * The shared shapes of `portcullis/oauth2`: what a login through a provider yields.
 *
 * @module portcullis/oauth2
 */

/** The identity a provider vouched for, after every check passed. */
export interface OAuth2User {
  /** The registration id of the client that logged the user in (e.g. `google`). */
  readonly provider: string;
  /** The provider's stable subject identifier (`sub`, or GitHub's numeric id as a string). */
  readonly subject: string;
  readonly email: string | undefined;
  /** Whether the provider verified the email. Never use an unverified email as an identity. */
  readonly emailVerified: boolean;
  readonly name: string | undefined;
  readonly picture: string | undefined;
  /** Every claim (ID token merged with userinfo), frozen; own properties only. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** The provider's tokens from a code exchange or a refresh. */
export interface OAuth2Tokens {
  readonly accessToken: string;
  readonly tokenType: string;
  /** Seconds until the access token expires, when the provider says. */
  readonly expiresIn: number | undefined;
  readonly refreshToken: string | undefined;
  /** The raw ID token (OIDC providers). */
  readonly idToken: string | undefined;
  readonly scope: string | undefined;
}

/** What `handleCallback` returns. */
export interface OAuth2LoginResult {
  readonly user: OAuth2User;
  readonly tokens: OAuth2Tokens;
}

/** The values `authorizationUrl()` made, to keep (sealed, server-side or in a cookie) until the callback. */
export interface OAuth2Expectations {
  readonly state: string;
  readonly pkceVerifier: string;
  /** `undefined` for plain OAuth2 providers (no ID token). */
  readonly nonce: string | undefined;
}

/** The contract of a client, as the login routes use it. */
export interface OAuth2ClientLike {
  readonly registrationId: string;
  /** The issuer (OIDC) or authorization endpoint origin, recorded in the transaction. */
  readonly issuer: string;
  /** `[url, state, pkceVerifier, nonce]`: S256 PKCE, fresh random values each call. */
  authorizationUrl(): Promise<readonly [URL, string, string, string | undefined]>;
  /**
   * Validates the redirect (state, `iss`, error responses), exchanges the code,
   * validates the ID token and userinfo; throws an `OAuth2Error` otherwise.
   */
  handleCallback(
    currentUrl: URL | string,
    expected: OAuth2Expectations,
  ): Promise<OAuth2LoginResult>;
  /** A new token set from a stored provider refresh token. */
  refresh(refreshToken: string): Promise<OAuth2Tokens>;
}
