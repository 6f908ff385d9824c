import { randomUUID } from 'node:crypto';
import { ConfigurationError } from '../core/errors.js';
import { requireInteger, requireName, requireNames } from '../core/validate.js';

/** Claim names that {@link Claims.custom} may not set: they have their own methods or meaning. */
export const REGISTERED_CLAIMS: readonly string[] = Object.freeze([
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'roles',
  'authorities',
  'token_use',
  'fam',
  'auth_time',
  'client_id',
  'scope',
]);

/** A JWT claims set as read from a verified token: own properties only, frozen. */
export type ClaimsSet = Readonly<Record<string, unknown>> & {
  readonly sub: string;
  readonly exp: number;
  readonly iat?: number;
  readonly jti?: string;
};

interface ClaimsState {
  readonly sub: string;
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
  readonly iss: string | undefined;
  readonly aud: readonly string[] | undefined;
  readonly roles: readonly string[];
  readonly authorities: readonly string[];
  readonly custom: Readonly<Record<string, unknown>>;
}

/**
 * The claims of a token to issue (SPEC.md's `Claims`): subject, lifetime, issuer,
 * audience, roles, authorities and custom claims. Immutable: each method returns a
 * new `Claims`. As on `User`, `roles` / `authorities` are the readable fields and
 * `withRoles()` / `withAuthorities()` the builders. `iat` is now, `exp` is `iat + ttlSeconds`, `jti` a random UUID, all
 * fixed when the claims are created.
 *
 * @example
 * ```ts
 * const claims = new Claims('alice', 3600).withRoles(['USER']).custom({ tenant: 'acme' });
 * const token = await jwt.generateTokenWithClaims(claims);
 * ```
 */
export class Claims {
  #state: ClaimsState;

  /**
   * @param subject - the `sub` claim (the username)
   * @param ttlSeconds - the lifetime in seconds (1 s to 366 days)
   * @param now - the issue time in epoch milliseconds @defaultValue `Date.now()`
   */
  constructor(subject: string, ttlSeconds: number, now: number = Date.now()) {
    const ttl = requireInteger('ttlSeconds', ttlSeconds, 1, 366 * 86_400);
    const iat = Math.floor(now / 1000);
    this.#state = Object.freeze({
      sub: requireName('subject', subject),
      iat,
      exp: iat + ttl,
      jti: randomUUID(),
      iss: undefined,
      aud: undefined,
      roles: Object.freeze([]),
      authorities: Object.freeze([]),
      custom: Object.freeze({}),
    });
  }

  /** The subject (username). */
  get sub(): string {
    return this.#state.sub;
  }
  /** Issued at, epoch seconds. */
  get iat(): number {
    return this.#state.iat;
  }
  /** Expiry, epoch seconds. */
  get exp(): number {
    return this.#state.exp;
  }
  /** The token id. */
  get jti(): string {
    return this.#state.jti;
  }
  /** The issuer, if set. */
  get iss(): string | undefined {
    return this.#state.iss;
  }
  /** The audiences, if set. */
  get aud(): readonly string[] | undefined {
    return this.#state.aud;
  }
  get roles(): readonly string[] {
    return this.#state.roles;
  }
  get authorities(): readonly string[] {
    return this.#state.authorities;
  }
  /** The custom claims. */
  get customClaims(): Readonly<Record<string, unknown>> {
    return this.#state.custom;
  }

  /** Sets the issuer (`iss`). */
  issuer(issuer: string): Claims {
    return this.#with({ iss: requireName('issuer', issuer) });
  }

  /** Sets the audience (`aud`): one or several. */
  audience(audience: string | readonly string[]): Claims {
    const list = typeof audience === 'string' ? [audience] : audience;
    const names = requireNames('audience', list);
    if (names.length === 0) throw new ConfigurationError('audience', 'must name an audience');
    return this.#with({ aud: Object.freeze(names) });
  }

  /** Sets the roles (`roles` is the readable field, as on `User`). */
  withRoles(roles: Iterable<string>): Claims {
    return this.#with({ roles: Object.freeze([...new Set(requireNames('roles', roles))]) });
  }

  /** Sets the authorities. */
  withAuthorities(authorities: Iterable<string>): Claims {
    const names = requireNames('authorities', authorities);
    return this.#with({ authorities: Object.freeze([...new Set(names)]) });
  }

  /**
   * Adds custom claims (JSON values). Registered and library claims (`sub`, `exp`,
   * `roles`, …) cannot be set this way.
   * @throws ConfigurationError for a reserved name or a value JSON cannot carry
   */
  custom(claims: Readonly<Record<string, unknown>>): Claims {
    if (typeof claims !== 'object' || (claims as unknown) === null || Array.isArray(claims)) {
      throw new ConfigurationError('custom', 'must be an object of claims');
    }
    const copy: Record<string, unknown> = { ...this.#state.custom };
    for (const [name, value] of Object.entries(claims)) {
      if (REGISTERED_CLAIMS.includes(name)) {
        throw new ConfigurationError(`custom.${name}`, 'is a registered claim; use its own method');
      }
      // `copy.__proto__ = v` would set the prototype, not a claim (and drop it from the token).
      if (name === '__proto__')
        throw new ConfigurationError(`custom.${name}`, 'is not a claim name');
      copy[name] = jsonValue(`custom.${name}`, value);
    }
    return this.#with({ custom: Object.freeze(copy) });
  }

  /** The claims set to sign. @internal */
  toPayload(): Record<string, unknown> {
    const { sub, iat, exp, jti, iss, aud, roles, authorities, custom } = this.#state;
    return {
      ...custom,
      sub,
      iat,
      exp,
      jti,
      ...(iss === undefined ? {} : { iss }),
      ...(aud === undefined ? {} : { aud: aud.length === 1 ? aud[0] : [...aud] }),
      roles: [...roles],
      authorities: [...authorities],
    };
  }

  #with(change: Partial<ClaimsState>): Claims {
    const next = new Claims(this.#state.sub, 1);
    next.#state = Object.freeze({ ...this.#state, ...change });
    return next;
  }
}

/**
 * A deep copy of a JSON value. Refuses what JSON would silently change: `NaN` and
 * `Infinity` (become `null`), `undefined`, functions and symbols (dropped or `null`
 * inside objects and arrays), as well as `BigInt` and cycles (throw).
 */
function jsonValue(option: string, value: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value, (_key, member: unknown) => {
      if (
        member === undefined ||
        typeof member === 'function' ||
        typeof member === 'symbol' ||
        (typeof member === 'number' && !Number.isFinite(member))
      ) {
        throw new TypeError('not a JSON value');
      }
      return member;
    });
  } catch {
    text = undefined;
  }
  if (text === undefined) throw new ConfigurationError(option, 'must be a JSON value');
  return JSON.parse(text) as unknown;
}
