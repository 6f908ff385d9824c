import type * as oauth from 'oauth4webapi';
import { fieldsFromClaims, type ReadProfile } from './profile.js';
import type { OAuth2Tokens, OAuth2User } from './types.js';

/** The token set of a processed token response (the ID token only when it was validated). @internal */
export function toTokens(result: oauth.TokenEndpointResponse, withIdToken: boolean): OAuth2Tokens {
  return Object.freeze({
    accessToken: result.access_token,
    tokenType: result.token_type,
    expiresIn: result.expires_in,
    refreshToken: result.refresh_token,
    idToken: withIdToken ? result.id_token : undefined,
    scope: result.scope,
  });
}

/**
 * The profile of an OpenID Connect login: the validated ID token's claims merged with
 * the userinfo claims (the ID token wins, as in Spring Security), `email` and
 * `email_verified` always taken together from one source.
 *
 * @internal
 */
export function oidcProfile(
  idToken: oauth.IDToken,
  userInfo: oauth.UserInfoResponse | undefined,
  stringBooleans: boolean,
): ReadProfile {
  const claims: Record<string, unknown> = { ...userInfo, ...idToken };
  // `email` and `email_verified` come from the same source, never one from each.
  const source: Readonly<Record<string, unknown>> =
    idToken.email === undefined && userInfo !== undefined ? userInfo : idToken;
  delete claims.email;
  delete claims.email_verified;
  if (source.email !== undefined) claims.email = source.email;
  if (source.email_verified !== undefined) claims.email_verified = source.email_verified;
  return { subject: idToken.sub, ...fieldsFromClaims(claims, { stringBooleans }), claims };
}

/** The user: frozen, with a frozen deep copy of the claims holding own properties only. @internal */
export function toUser(provider: string, profile: ReadProfile): OAuth2User {
  return Object.freeze({
    provider,
    subject: profile.subject,
    email: profile.email,
    emailVerified: profile.emailVerified === true && profile.email !== undefined,
    name: profile.name,
    picture: profile.picture,
    claims: freezeJson(profile.claims) as Readonly<Record<string, unknown>>,
  });
}

/** A frozen copy of JSON data (`__proto__` stays an ordinary own key). */
function freezeJson(value: unknown): unknown {
  if (Array.isArray(value)) return Object.freeze(value.map(freezeJson));
  if (typeof value === 'object' && value !== null) {
    return Object.freeze(
      Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, freezeJson(inner)])),
    );
  }
  return value;
}
