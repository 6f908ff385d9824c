import { ConfigurationError } from '../core/errors.js';
import type { AuthenticationOutcome, CredentialChallenge } from '../core/outcome.js';

/**
 * A login URL, validated: a same-origin absolute path (one leading `/`, never `//`
 * or `/\`, which browsers read as another host), printable ASCII only (a header
 * value without CR/LF).
 *
 * @internal
 */
export function requireLoginUrl(path: unknown): string {
  if (typeof path !== 'string' || !/^\/(?![/\\])[\x21-\x7e]*$/u.test(path) || path.includes('\\')) {
    throw new ConfigurationError(
      'loginUrl',
      'must be a same-origin absolute path starting with a single "/", in printable ASCII',
    );
  }
  return path;
}

/**
 * The HTTP Basic challenge (RFC 7617 §2): `Basic realm="<realm>", charset="UTF-8"`,
 * with `"` and `\` escaped in the quoted string.
 *
 * @internal
 */
export function basicChallenge(realm: unknown): string {
  if (typeof realm !== 'string' || !/^[\x20-\x7e]*$/u.test(realm)) {
    throw new ConfigurationError(
      'httpBasic',
      'realm must be printable ASCII (no control characters)',
    );
  }
  return `Basic realm="${quote(realm)}", charset="UTF-8"`;
}

/**
 * The bearer-token challenge (RFC 6750 §3): `Bearer realm="<realm>"`.
 *
 * @internal
 */
export function bearerChallenge(realm: unknown): string {
  if (typeof realm !== 'string' || !/^[\x20-\x7e]*$/u.test(realm)) {
    throw new ConfigurationError('bearer', 'realm must be printable ASCII (no control characters)');
  }
  return `Bearer realm="${quote(realm)}"`;
}

/**
 * A challenge with the RFC 6750 error of a refused credential appended:
 * `Bearer realm="api", error="invalid_token", error_description="…"`. The
 * description is a fixed text of the authenticator, quoted and stripped of
 * anything but printable ASCII.
 *
 * @internal
 */
export function withError(challenge: string, failure: CredentialChallenge): string {
  const description = failure.description.replaceAll(/[^\x20-\x7e]/gu, '');
  const params = `error="${quote(failure.error)}", error_description="${quote(description)}"`;
  return challenge.includes(' ') ? `${challenge}, ${params}` : `${challenge} ${params}`;
}

function quote(value: string): string {
  return value.replaceAll(/["\\]/gu, '\\$&');
}

/**
 * A `WWW-Authenticate` challenge (RFC 9110 §11.6.1), validated: an auth-scheme
 * token, optionally a space and parameters, printable ASCII only.
 *
 * @internal
 */
export function requireChallenge(value: unknown, option = 'challenge'): string {
  if (
    typeof value !== 'string' ||
    !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?: [\x20-\x7e]*)?$/u.test(value)
  ) {
    throw new ConfigurationError(
      option,
      'must be an auth-scheme optionally followed by a space and parameters, in printable ASCII',
    );
  }
  return value;
}

/**
 * Validates a `challenges` option: `WWW-Authenticate` challenges (RFC 9110 §11.6.1).
 *
 * @internal
 */
export function requireChallenges(value: unknown): readonly string[] {
  if (!Array.isArray(value)) {
    throw new ConfigurationError('challenges', 'must be an array of WWW-Authenticate challenges');
  }
  return Object.freeze(
    value.map((challenge, i) => requireChallenge(challenge, `challenges[${i}]`)),
  );
}

/**
 * The `WWW-Authenticate` value of a request's 401 at the tRPC and GraphQL edges: the
 * configured challenges, the one of the refused credential's scheme carrying its
 * RFC 6750 error (`Bearer error="invalid_token", error_description="…"`), added when
 * none has that scheme; `undefined` when there is nothing to say.
 *
 * @internal
 */
export function challengeOf(
  configured: readonly string[],
  authentication: AuthenticationOutcome,
): string | undefined {
  const failure = authentication.kind === 'failed' ? authentication.challenge : undefined;
  if (!failure) return configured.length === 0 ? undefined : configured.join(', ');
  const scheme = failure.scheme.toLowerCase();
  const matches = (challenge: string) => challenge.split(' ', 1)[0]?.toLowerCase() === scheme;
  const values = configured.map((c) => (matches(c) ? withError(c, failure) : c));
  if (!configured.some(matches)) values.push(withError(failure.scheme, failure));
  return values.join(', ');
}
