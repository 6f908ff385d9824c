import { AuthenticatedUser } from '../core/authenticated-user.js';
import { User } from '../core/user.js';
import type { ClaimsSet } from './claims.js';
import type { ClaimReader, JwtSettings } from './config.js';
import { JwtError } from './errors.js';

/**
 * The user a verified token stands for: `sub` as the username, roles and
 * authorities from their configured claims (own properties only: nothing is read
 * from a prototype), the configured attribute claims. A claim of the wrong shape
 * refuses the token (`ERR_JWT_MALFORMED`) rather than granting less or more.
 *
 * @internal
 */
export function userFromClaims(claims: ClaimsSet, settings: JwtSettings): AuthenticatedUser {
  const roles = readList(claims, settings.rolesClaim, 'roles');
  const authorities = readList(claims, settings.authoritiesClaim, 'authorities');
  const attributes: Record<string, unknown> = {};
  for (const name of settings.attributeClaims) {
    if (Object.hasOwn(claims, name)) attributes[name] = claims[name];
  }
  let user: User;
  try {
    user = new User(claims.sub, '', roles, authorities);
  } catch (error) {
    throw new JwtError('ERR_JWT_MALFORMED', 'The token subject, roles or authorities are invalid', {
      cause: error,
    });
  }
  return AuthenticatedUser.from(user, { authenticationMethod: 'jwt', attributes });
}

function readList(claims: ClaimsSet, reader: ClaimReader, what: string): readonly string[] {
  let value: unknown;
  if (typeof reader === 'function') {
    try {
      value = reader(claims);
    } catch (error) {
      throw new JwtError('ERR_JWT_MALFORMED', `The ${what} could not be read from the token`, {
        cause: error,
      });
    }
  } else {
    value = readPath(claims, reader);
  }
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.split(/\s+/u).filter((v) => v.length > 0);
  if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string')) {
    return value;
  }
  throw new JwtError('ERR_JWT_MALFORMED', `The ${what} claim must be a list of strings`);
}

/** Follows a dotted path through own properties of plain objects. */
function readPath(root: unknown, path: string): unknown {
  let value = root;
  for (const segment of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    if (!Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}
