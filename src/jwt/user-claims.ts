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
  const attributesJson = settings.attributeClaims.length === 0 ? '' : JSON.stringify(attributes);
  const known = memo.get(claims.sub);
  if (
    known !== undefined &&
    sameList(known.roles, roles) &&
    sameList(known.authorities, authorities) &&
    known.attributesJson === attributesJson
  ) {
    return known.user;
  }
  const user = makeUser(claims.sub, roles, authorities, attributes);
  memo.set(claims.sub, { roles: [...roles], authorities: [...authorities], attributesJson, user });
  return user;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A user built from claims, with the claim values it was built from. @internal */
export interface MemoizedUser {
  readonly roles: readonly string[];
  readonly authorities: readonly string[];
  /** The attribute claims as JSON, `''` when none are configured. */
  readonly attributesJson: string;
  readonly user: AuthenticatedUser;
}

/**
 * The last user built for each subject, reused while a token of that subject
 * carries exactly the same roles, authorities and attribute claims (compared
 * element by element, in order): bounded, least recently used evicted first.
 * Building a `User` (name checks, two immutable sets) is the largest cost of a
 * verification after the signature. @internal
 */
export class UserMemo {
  readonly #users = new Map<string, MemoizedUser>();
  readonly #max: number;

  constructor(max = 1000) {
    this.#max = max;
  }

  get(subject: string): MemoizedUser | undefined {
    const entry = this.#users.get(subject);
    if (entry !== undefined) {
      this.#users.delete(subject);
      this.#users.set(subject, entry);
    }
    return entry;
  }

  set(subject: string, entry: MemoizedUser): void {
    this.#users.delete(subject);
    if (this.#users.size >= this.#max) {
      const oldest = this.#users.keys().next();
      if (oldest.done !== true) this.#users.delete(oldest.value);
    }
    this.#users.set(subject, entry);
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
  if (!path.includes('.')) {
    if (typeof root !== 'object' || root === null || Array.isArray(root)) return undefined;
    return Object.hasOwn(root, path) ? (root as Record<string, unknown>)[path] : undefined;
  }
  let value = root;
  for (const segment of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    if (!Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}
