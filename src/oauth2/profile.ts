/**
 * How a provider's answers become the identity fields of an `OAuth2User`: the
 * OpenID Connect claims, or a provider's own profile API (GitHub, Discord, Facebook,
 * Microsoft Graph, a generic userinfo endpoint).
 *
 * @module portcullis/oauth2
 */

/** The identity fields a profile reader produces. */
export interface OAuth2ProfileFields {
  /** The provider's stable identifier of the user (never an email). */
  readonly subject: string;
  readonly email?: string | undefined;
  /** `true` only when the provider says it verified `email`. @defaultValue `false` */
  readonly emailVerified?: boolean | undefined;
  readonly name?: string | undefined;
  readonly picture?: string | undefined;
}

/** A profile read by a profile reader, with the raw claims it came from. @internal */
export interface ReadProfile extends OAuth2ProfileFields {
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * Fetches a JSON resource with the access token (through oauth4webapi's
 * `protectedResourceRequest`) and returns the parsed body; throws on any failure.
 *
 * @internal
 */
export type FetchJson = (
  url: string,
  headers?: Readonly<Record<string, string>>,
) => Promise<unknown>;

/** What a resource profile reader gets. @internal */
export interface ProfileContext {
  readonly fetchJson: FetchJson;
  /** The scopes the client requested. */
  readonly scopes: readonly string[];
}

/** Reads the profile of a plain OAuth2 provider from its API. @internal */
export type ProfileReader = (context: ProfileContext) => Promise<ReadProfile>;

/**
 * A profile API answered something this reader cannot use. Internal, so a plain
 * `Error` and no `PortcullisError`: it never escapes to users, as the client's
 * profile step turns any failure of a reader into an `OAuth2Error`
 * `ERR_OAUTH2_USERINFO` (this error its `cause`).
 *
 * @internal
 */
export class ProfileShapeError extends Error {
  constructor(problem: string) {
    super(`The profile response ${problem}`);
    this.name = 'ProfileShapeError';
  }
}

/** The string value of a claim, or `undefined`. @internal */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** A JSON object, or a {@link ProfileShapeError}. @internal */
export function requireObject(value: unknown): Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProfileShapeError('is not a JSON object');
  }
  return value as Readonly<Record<string, unknown>>;
}

/** A subject from a string or a safe integer id (GitHub, Facebook), or a {@link ProfileShapeError}. @internal */
export function requireSubject(value: unknown): string {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === 'string' && value.length > 0 && value.length <= 255) return value;
  throw new ProfileShapeError('has no usable user id');
}

/**
 * The identity fields from OpenID Connect claims. `emailVerified` is `true` only for
 * `email_verified: true` (and the string `"true"` where the provider sends strings, as
 * Apple has).
 *
 * @internal
 */
export function fieldsFromClaims(
  claims: Readonly<Record<string, unknown>>,
  options: { readonly stringBooleans?: boolean } = {},
): Omit<ReadProfile, 'claims' | 'subject'> {
  const email = text(claims.email);
  const verified = claims.email_verified;
  return {
    email,
    emailVerified:
      email !== undefined &&
      (verified === true || (options.stringBooleans === true && verified === 'true')),
    name: text(claims.name),
    picture: text(claims.picture),
  };
}

/** A generic userinfo reader: `sub` (or `id`), `email`, `email_verified`, `name`, `picture`. @internal */
export function userInfoReader(
  endpoint: string,
  map: (data: Readonly<Record<string, unknown>>) => OAuth2ProfileFields = defaultFields,
): ProfileReader {
  return async ({ fetchJson }) => {
    const data = requireObject(await fetchJson(endpoint));
    const fields = map(data);
    return {
      subject: requireSubject(fields.subject),
      email: text(fields.email),
      emailVerified: fields.emailVerified === true && text(fields.email) !== undefined,
      name: text(fields.name),
      picture: text(fields.picture),
      claims: data,
    };
  };
}

function defaultFields(data: Readonly<Record<string, unknown>>): OAuth2ProfileFields {
  return { subject: requireSubject(data.sub ?? data.id), ...fieldsFromClaims(data) };
}

const GITHUB_HEADERS = {
  accept: 'application/vnd.github+json',
  'x-github-api-version': '2022-11-28',
};

/**
 * GitHub: `GET /user` (numeric `id` as the subject, `login`, `name`, `avatar_url`),
 * and with the `user:email` (or `user`) scope `GET /user/emails`, whose primary
 * verified address is the only email reported as verified.
 *
 * @internal
 */
export function githubReader(apiBase: string): ProfileReader {
  return async ({ fetchJson, scopes }) => {
    const user = requireObject(await fetchJson(`${apiBase}/user`, GITHUB_HEADERS));
    const subject = requireSubject(user.id);
    let email = text(user.email);
    let emailVerified = false;
    if (scopes.includes('user:email') || scopes.includes('user')) {
      const emails = await fetchJson(`${apiBase}/user/emails`, GITHUB_HEADERS);
      if (!Array.isArray(emails)) throw new ProfileShapeError('of /user/emails is not a list');
      const primary = emails
        .map((entry) => requireObject(entry))
        .find((entry) => entry.primary === true && entry.verified === true);
      email = primary === undefined ? undefined : text(primary.email);
      emailVerified = email !== undefined;
    }
    return {
      subject,
      email,
      emailVerified,
      name: text(user.name) ?? text(user.login),
      picture: text(user.avatar_url),
      claims: user,
    };
  };
}

/** Discord: `GET /users/@me` (`id`, `global_name` or `username`, `email`, `verified`, `avatar`). @internal */
export function discordReader(apiBase: string): ProfileReader {
  return async ({ fetchJson }) => {
    const user = requireObject(await fetchJson(`${apiBase}/users/@me`));
    const subject = requireSubject(user.id);
    const email = text(user.email);
    const avatar = text(user.avatar);
    return {
      subject,
      email,
      emailVerified: email !== undefined && user.verified === true,
      name: text(user.global_name) ?? text(user.username),
      picture:
        avatar !== undefined && /^\d+$/u.test(subject) && /^(?:a_)?[0-9a-f]{1,64}$/u.test(avatar)
          ? `https://cdn.discordapp.com/avatars/${subject}/${avatar}.png`
          : undefined,
      claims: user,
    };
  };
}

/**
 * Facebook: `GET /me?fields=id,name,email,picture` of the Graph API. Facebook does
 * not say whether the email was verified, so `emailVerified` is `false`.
 *
 * @internal
 */
export function facebookReader(graphBase: string): ProfileReader {
  return async ({ fetchJson }) => {
    const user = requireObject(await fetchJson(`${graphBase}/me?fields=id,name,email,picture`));
    const picture = user.picture;
    const data =
      typeof picture === 'object' && picture !== null && !Array.isArray(picture)
        ? (picture as Record<string, unknown>).data
        : undefined;
    return {
      subject: requireSubject(user.id),
      email: text(user.email),
      emailVerified: false,
      name: text(user.name),
      picture:
        typeof data === 'object' && data !== null
          ? text((data as Record<string, unknown>).url)
          : undefined,
      claims: user,
    };
  };
}

/**
 * Microsoft Graph (multi-tenant sign-in without OpenID Connect): `GET /v1.0/me`; the
 * subject is the Graph object `id`; `mail` is reported unverified.
 *
 * @internal
 */
export function microsoftGraphReader(): ProfileReader {
  return async ({ fetchJson }) => {
    const user = requireObject(await fetchJson('https://graph.microsoft.com/v1.0/me'));
    return {
      subject: requireSubject(user.id),
      email: text(user.mail),
      emailVerified: false,
      name: text(user.displayName),
      picture: undefined,
      claims: user,
    };
  };
}
