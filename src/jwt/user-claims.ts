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
export function userFromClaims(
  claims: ClaimsSet,
  settings: JwtSettings,
  memo?: UserMemo,
): AuthenticatedUser {
  const roles = readList(claims, settings.rolesClaim, 'roles');
  const authorities = readList(claims, settings.authoritiesClaim, 'authorities');
  const attributes: Record<string, unknown> = {};
  for (const name of settings.attributeClaims) {
    if (Object.hasOwn(claims, name)) attributes[name] = claims[name];
  }
  if (memo === undefined) return makeUser(claims.sub, roles, authorities, attributes);
  // The same claims give the same (immutable) user: tokens of one user share it.
  const key = JSON.stringify([claims.sub, roles, authorities, attributes]);
  const known = memo.get(key);
  if (known !== undefined) return known;
  const user = makeUser(claims.sub, roles, authorities, attributes);
  memo.set(key, user);
  return user;
}

/**
 * Users already built from claims, keyed by their JSON (`[sub, roles, authorities,
 * attributes]`): bounded, least recently used evicted first. Building a `User`
 * (name checks, two immutable sets) is the largest cost of a verification after the
 * signature. @internal
 */
export class UserMemo {
  readonly #users = new Map<string, AuthenticatedUser>();
  readonly #max: number;

  constructor(max = 1000) {
    this.#max = max;
  }

  get(key: string): AuthenticatedUser | undefined {
    const user = this.#users.get(key);
    if (user !== undefined) {
      this.#users.delete(key);
      this.#users.set(key, user);
    }
    return user;
  }

  set(key: string, user: AuthenticatedUser): void {
    if (this.#users.size >= this.#max) {
      const oldest = this.#users.keys().next();
      if (oldest.done !== true) this.#users.delete(oldest.value);
    }
    this.#users.set(key, user);
  }
}

function makeUser(
  sub: string,
  roles: readonly string[],
  authorities: readonly string[],
  attributes: Record<string, unknown>,
): AuthenticatedUser {
  let user: User;
  try {
    user = new User(sub, '', roles, authorities);
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
