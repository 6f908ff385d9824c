import { TtlCache } from '../lib/ttl-cache.js';
import type { SessionState } from './codec.js';

/** iron's allowance for clock skew past a seal's expiry (its `timestampSkewSec`, 60). */
const IRON_SKEW_MS = 60_000;

/**
 * The contents of recently opened session cookies, by their exact sealed value (the
 * `unsealCache` of `SessionAuthenticator`): a cookie seen again skips iron's key
 * derivation and decryption. Only cookies that unsealed are remembered, never past
 * the seal's own expiry as iron reads it (the system clock, 60 s of skew), so it
 * answers nothing that unsealing would refuse; the session's age, revocation, CSRF
 * and `loadUser` are checked by the authenticator on every request.
 *
 * @internal
 */
export class OpenedCookies {
  readonly #cache: TtlCache<
    string,
    { readonly state: SessionState; readonly sealExpiresAtMs: number }
  >;

  constructor(options: { readonly maxEntries: number; readonly ttlMs: number }) {
    this.#cache = new TtlCache(options);
  }

  /** The state of a cookie opened lately, unless its seal has expired since. */
  get(value: string): SessionState | undefined {
    const cached = this.#cache.get(value);
    if (cached === undefined || Date.now() > cached.sealExpiresAtMs + IRON_SKEW_MS)
      return undefined;
    return cached.state;
  }

  /** Remembers a cookie that just unsealed; answers its state, frozen (it is shared). */
  remember(value: string, state: SessionState): SessionState {
    const frozen = freezeState(state);
    const sealExpiresAtMs = sealExpiry(value);
    if (sealExpiresAtMs !== undefined) this.#cache.set(value, { state: frozen, sealExpiresAtMs });
    return frozen;
  }
}

/** A state shared by the requests that present the same cookie: frozen, its lists too. */
function freezeState(state: SessionState): SessionState {
  const user = state.user;
  return Object.freeze({
    sid: state.sid,
    iat: state.iat,
    user:
      user === undefined
        ? undefined
        : Object.freeze({
            username: user.username,
            roles: Object.freeze([...user.roles]),
            authorities: Object.freeze([...user.authorities]),
          }),
  });
}

/**
 * The expiry (epoch ms) written in an iron seal — `Fe26.2*id*salt*iv*data*expiry*salt*mac` —
 * read only from a seal that just unsealed (so it is authentic); `undefined` without one.
 */
function sealExpiry(value: string): number | undefined {
  const expiry = Number(value.split('*')[5]);
  return Number.isSafeInteger(expiry) && expiry > 0 ? expiry : undefined;
}
