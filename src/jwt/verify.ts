import {
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JWTHeaderParameters,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import { KeyObject, webcrypto } from 'node:crypto';
import type { ClaimsSet } from './claims.js';
import { isCompactJws } from './compact.js';
import { normalizeType, type JwtSettings } from './config.js';
import { JwtError, type JwtErrorCode } from './errors.js';
import type { JwtAlgorithm } from './keys.js';

const HMAC_HASHES: Partial<Record<JwtAlgorithm, string>> = {
  HS256: 'SHA-256',
  HS384: 'SHA-384',
  HS512: 'SHA-512',
};

/** A verified token: its protected header and claims (own properties, frozen). */
export interface VerifiedToken {
  readonly header: Readonly<JWTHeaderParameters>;
  readonly claims: ClaimsSet;
}

/** What a token is checked to be. @internal */
export type TokenKind = 'access' | 'refresh';

/** The `typ` of refresh tokens this library issues. @internal */
export const REFRESH_TYPE = 'refresh+jwt';
/** The `typ` of access tokens this library issues (RFC 9068). @internal */
export const ACCESS_TYPE = 'at+jwt';

/**
 * Verifies compact JWS tokens with jose: the configured algorithms only (never
 * `none`), `exp` and `sub` required, `nbf` / `iat` / `exp` with the leeway, issuer
 * and audience when configured, the length capped and the compact form checked
 * (one spelling per token, {@link isCompactJws}) before decoding, and the token
 * type checked so a refresh or ID token never passes as an access token.
 *
 * @internal
 */
export class TokenVerifier {
  readonly #settings: JwtSettings;
  #key: KeyObject | webcrypto.CryptoKey | JWTVerifyGetKey;
  /** The one-time import of an HMAC secret into WebCrypto (see `#importSecret`). */
  #secretImport: Promise<void> | undefined;
  /** jose's options but the clock, built once. */
  readonly #options: Omit<JWTVerifyOptions, 'currentDate'>;

  constructor(settings: JwtSettings) {
    this.#settings = settings;
    // Frozen: spreading a frozen object into each call's options measured 2.5 µs
    // cheaper per verification than spreading a plain one (Node 20).
    this.#options = Object.freeze({
      algorithms: [...settings.algorithms],
      ...(settings.issuer === undefined ? {} : { issuer: settings.issuer }),
      ...(settings.audience === undefined ? {} : { audience: [...settings.audience] }),
      clockTolerance: settings.leewaySeconds,
      requiredClaims: ['exp', 'sub'],
    });
    const jwks = settings.jwks;
    if (jwks) {
      this.#key = createRemoteJWKSet(jwks.url, {
        cacheMaxAge: jwks.cacheMaxAgeSeconds * 1000,
        cooldownDuration: jwks.cooldownSeconds * 1000,
        timeoutDuration: jwks.timeoutMs,
      });
    } else {
      this.#key = (settings.keys as NonNullable<JwtSettings['keys']>).verify;
    }
  }

  async verify(token: unknown, kind: TokenKind): Promise<VerifiedToken> {
    const settings = this.#settings;
    if (typeof token !== 'string' || token.length === 0) {
      throw new JwtError('ERR_JWT_MALFORMED', 'The token must be a non-empty string');
    }
    if (token.length > settings.maxTokenLength) {
      throw new JwtError(
        'ERR_JWT_TOO_LARGE',
        `The token is longer than ${settings.maxTokenLength} characters`,
      );
    }
    if (!isCompactJws(token)) {
      throw new JwtError(
        'ERR_JWT_MALFORMED',
        'The token is not a compact JWS of canonical base64url segments',
      );
    }
    const key = this.#key;
    if (key instanceof KeyObject && key.type === 'secret') {
      await (this.#secretImport ??= this.#importSecret(key));
    }
    const now = settings.clock();
    let result;
    try {
      // On the real clock jose reads it itself, and the options go as built (no copy).
      const options =
        settings.clock === Date.now
          ? this.#options
          : { ...this.#options, currentDate: new Date(now) };
      result = await jwtVerify(token, this.#key as KeyObject, options);
    } catch (error) {
      throw translate(error, settings.jwks !== undefined);
    }
    const { protectedHeader: header, payload } = result;
    checkType(header, payload, kind, settings);
    // A subject with control characters is no username (and would forge log lines).
    // eslint-disable-next-line no-control-regex
    if (typeof payload.sub !== 'string' || !/^[^\u0000-\u001f\u007f]+$/u.test(payload.sub)) {
      throw new JwtError(
        'ERR_JWT_MALFORMED',
        'The "sub" claim must be a non-empty string without control characters',
      );
    }
    if (
      typeof payload.iat === 'number' &&
      payload.iat > Math.floor(now / 1000) + settings.leewaySeconds
    ) {
      throw new JwtError('ERR_JWT_NOT_YET_VALID', 'The token was issued in the future');
    }
    // jose parsed both objects for this call only: freeze them rather than copy them.
    return Object.freeze({
      header: Object.freeze(header),
      claims: Object.freeze(payload) as ClaimsSet,
    });
  }

  /**
   * jose 6 turns a secret `KeyObject` into a WebCrypto key on every verification
   * (`export()` then `crypto.subtle.importKey`), which costs as much as the
   * verification itself: import the secret once, non-extractable and for `verify`
   * only, one key per accepted HMAC algorithm. Should the import fail, jose keeps
   * getting the `KeyObject`.
   */
  async #importSecret(secret: KeyObject): Promise<void> {
    try {
      const raw = secret.export();
      const keys = new Map<string, webcrypto.CryptoKey>();
      for (const algorithm of this.#settings.algorithms) {
        const hash = HMAC_HASHES[algorithm];
        if (hash === undefined) return;
        const key = await webcrypto.subtle.importKey('raw', raw, { name: 'HMAC', hash }, false, [
          'verify',
        ]);
        keys.set(algorithm, key);
      }
      const [only] = keys.values();
      this.#key =
        keys.size === 1 && only !== undefined
          ? only
          : (header: JWTHeaderParameters) => keys.get(header.alg) ?? secret;
    } catch {
      this.#key = secret;
    }
  }
}

function checkType(
  header: JWTHeaderParameters,
  payload: Readonly<Record<string, unknown>>,
  kind: TokenKind,
  settings: JwtSettings,
): void {
  const typ = typeof header.typ === 'string' ? normalizeType(header.typ) : undefined;
  if (kind === 'refresh') {
    if (typ === REFRESH_TYPE) return;
    throw new JwtError('ERR_JWT_WRONG_TYPE', 'The token is not a refresh token');
  }
  if (typ === REFRESH_TYPE)
    throw new JwtError('ERR_JWT_WRONG_TYPE', 'A refresh token is not an access token');
  const tokenUse = payload['token_use'];
  if (tokenUse !== undefined && tokenUse !== 'access') {
    throw new JwtError('ERR_JWT_WRONG_TYPE', 'The token is not an access token');
  }
  if (tokenUse === 'access') return;
  if (typ !== undefined && settings.accessTokenTypes.includes(typ)) return;
  throw new JwtError('ERR_JWT_WRONG_TYPE', 'The token is not typed as an access token');
}

/** jose's errors as {@link JwtError}s with stable codes (the message never holds a claim value). */
function translate(error: unknown, remote: boolean): JwtError {
  const code = codeOf(error, remote);
  const message: Record<JwtErrorCode, string> = {
    ERR_JWT_EXPIRED: 'The token expired',
    ERR_JWT_NOT_YET_VALID: 'The token is not valid yet',
    ERR_JWT_BAD_SIGNATURE: 'The token signature is invalid',
    ERR_JWT_BAD_ISSUER: 'The token issuer is not accepted',
    ERR_JWT_BAD_AUDIENCE: 'The token audience is not accepted',
    ERR_JWT_MALFORMED: 'The token is malformed',
    ERR_JWT_ALGORITHM_NOT_ALLOWED: 'The token algorithm is not allowed',
    ERR_JWT_TOO_LARGE: 'The token is too large',
    ERR_JWT_WRONG_TYPE: 'The token has the wrong type',
    ERR_JWT_KEY_NOT_FOUND: 'No key of the key set matches the token',
    ERR_JWT_JWKS_UNAVAILABLE: 'The key set could not be fetched',
    ERR_JWT_REFRESH_REUSED: 'The refresh token was already used',
    ERR_JWT_REVOKED: 'The token was revoked',
    ERR_JWT_UNKNOWN_USER: 'The token user is unknown',
    ERR_JWT_ACCOUNT_INACTIVE: 'The token user may not log in now',
    ERR_JWT_SIGNING_FAILED: 'The token could not be signed',
  };
  return new JwtError(code, message[code], { cause: error });
}

function codeOf(error: unknown, remote: boolean): JwtErrorCode {
  if (error instanceof errors.JWTExpired) return 'ERR_JWT_EXPIRED';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'ERR_JWT_BAD_ISSUER';
    if (error.claim === 'aud') return 'ERR_JWT_BAD_AUDIENCE';
    if ((error.claim === 'nbf' || error.claim === 'iat') && error.reason === 'check_failed') {
      return 'ERR_JWT_NOT_YET_VALID';
    }
    return 'ERR_JWT_MALFORMED';
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'ERR_JWT_BAD_SIGNATURE';
  // Not JOSENotSupported: with the algorithm list checked first, jose raises it for
  // a `crit` extension it does not understand, which makes the JWS invalid (RFC 7515
  // §4.1.11), not its algorithm.
  if (error instanceof errors.JOSEAlgNotAllowed) return 'ERR_JWT_ALGORITHM_NOT_ALLOWED';
  if (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return 'ERR_JWT_KEY_NOT_FOUND';
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) {
    return 'ERR_JWT_JWKS_UNAVAILABLE';
  }
  // A key set that cannot be fetched: a network failure, or jose's generic error
  // for a response other than 200 with a JSON key set.
  if (
    remote &&
    (isFetchFailure(error) || (error as { code?: unknown }).code === 'ERR_JOSE_GENERIC')
  ) {
    return 'ERR_JWT_JWKS_UNAVAILABLE';
  }
  return 'ERR_JWT_MALFORMED';
}

function isFetchFailure(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof Error && error.name === 'AbortError');
}
