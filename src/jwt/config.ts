import { ConfigurationError } from '../core/errors.js';
import { applyOptions, draftOf, setOption, type RowValue } from '../lib/config-table.js';
import { rejectUnknownOptions, requireInteger } from '../core/validate.js';
import {
  JWT_OPTIONS,
  KEY_OPTIONS,
  readJwks,
  type ClaimReader,
  type JwksOptions,
  type JwtCacheOptions,
  type JwtConfigOptions,
  type JwtDraft,
  type JwtSettings,
} from './config-options.js';
import { defaultAlgorithm, readKeys, type JwtAlgorithm, type JwtKeyInput } from './keys.js';

export {
  normalizeType,
  type ClaimReader,
  type JwksOptions,
  type JwtCacheOptions,
  type JwtConfigOptions,
  type JwtSettings,
} from './config-options.js';

type Option = keyof typeof JWT_OPTIONS;

const DAY = 86_400;

/**
 * The configuration of {@link JwtAuthenticator} and {@link JwtTokenService}
 * (SPEC.md's `JwtConfig`): a key and algorithm, issuer, audience, lifetimes, leeway
 * and where the token is read. Setters validate at once (a short HMAC secret or an
 * algorithm that does not fit the key throws a `ConfigurationError` here, never at
 * request time) and return the same configuration for chaining; an authenticator
 * takes a snapshot when it is created.
 *
 * @example
 * ```ts
 * const config = new JwtConfig(process.env.JWT_SECRET!) // ≥ 32 bytes for HS256
 *   .algorithm('HS512') // ≥ 64 bytes
 *   .issuer('https://api.example.com')
 *   .audience('example-app')
 *   .expirationHours(1);
 * const rs = new JwtConfig({ privateKey: pem }).algorithm('RS256');
 * const idp = JwtConfig.jwks('https://idp.example.com/.well-known/jwks.json').issuer('https://idp.example.com/').audience('api');
 * ```
 */
export class JwtConfig {
  readonly #draft: JwtDraft = draftOf(JWT_OPTIONS, {
    input: undefined,
    keys: undefined,
    jwks: undefined,
  });

  /**
   * @param secretOrKey - an HMAC secret (at least 32 bytes for the default HS256),
   *   a PEM string, a `KeyObject`, a JWK, `{ privateKey, publicKey }`, or the plain
   *   options object ({@link JwtConfigOptions})
   */
  constructor(secretOrKey: JwtKeyInput | JwtConfigOptions) {
    requirePresent(secretOrKey);
    if (isOptions(secretOrKey)) {
      this.#applyOptions(secretOrKey);
      return;
    }
    this.#setKey(secretOrKey);
  }

  /** Reads the key with the default algorithm of its kind (HS256, RS256, PS256, ES256/384/512, EdDSA). */
  #setKey(input: unknown): void {
    const algorithm = defaultAlgorithm(input);
    this.#draft.keys = readKeys(input, algorithm);
    this.#draft.input = input;
    this.#draft.algorithms = Object.freeze([algorithm]);
  }

  /** Resource-server mode: verifies tokens of an identity provider with the keys of its JWKS URL. */
  static jwks(url: string | URL | JwksOptions): JwtConfig {
    return new JwtConfig({ jwks: url });
  }

  /** Builds a configuration from its plain-object form. */
  static fromOptions(options: JwtConfigOptions): JwtConfig {
    return new JwtConfig(options);
  }

  /** The signing algorithm, and the only one accepted. @defaultValue `'HS256'` */
  algorithm(algorithm: JwtAlgorithm): this {
    return this.#set('algorithm', algorithm);
  }

  /**
   * The algorithms accepted when verifying (the first also signs). All must fit the
   * key: HMAC algorithms never mix with asymmetric ones.
   */
  algorithms(algorithms: readonly JwtAlgorithm[]): this {
    return this.#set('algorithms', algorithms);
  }

  /** The issuer: the `iss` of issued tokens, and the only one accepted. */
  issuer(issuer: string): this {
    return this.#set('issuer', issuer);
  }

  /** The audience(s): the `aud` of issued tokens; a token is accepted when its `aud` names any of them. */
  audience(audience: string | readonly string[]): this {
    return this.#set('audience', audience);
  }

  /** Access-token lifetime in seconds. @defaultValue `900` */
  expirationSeconds(seconds: number): this {
    return this.#set('expirationSeconds', seconds);
  }

  /** {@link JwtConfig.expirationSeconds} under the SPEC's name (`expiration_secs`). */
  expirationSecs(seconds: number): this {
    return this.expirationSeconds(seconds);
  }

  /** Access-token lifetime in hours. */
  expirationHours(hours: number): this {
    return this.expirationSeconds(requireInteger('expirationHours', hours, 1, 366 * 24) * 3600);
  }

  /** Access-token lifetime in days. */
  expirationDays(days: number): this {
    return this.expirationSeconds(requireInteger('expirationDays', days, 1, 366) * DAY);
  }

  /** Clock-skew tolerance for `exp`, `nbf` and `iat`, in seconds. @defaultValue `30` */
  leewaySeconds(seconds: number): this {
    return this.#set('leewaySeconds', seconds);
  }

  /** {@link JwtConfig.leewaySeconds} under the SPEC's name (`leeway_secs`). */
  leewaySecs(seconds: number): this {
    return this.leewaySeconds(seconds);
  }

  /** The request header the token is read from. @defaultValue `'Authorization'` */
  headerName(name: string): this {
    return this.#set('headerName', name);
  }

  /** What precedes the token in the header (compared case-insensitively). @defaultValue `'Bearer '` */
  headerPrefix(prefix: string): this {
    return this.#set('headerPrefix', prefix);
  }

  /** The longest token decoded, in characters. @defaultValue `8192` */
  maxTokenLength(length: number): this {
    return this.#set('maxTokenLength', length);
  }

  /** The verified-token cache, or `false` to verify every request. */
  cache(options: JwtCacheOptions | false): this {
    return this.#set('cache', options);
  }

  /** The `typ` values accepted for access tokens. @defaultValue `['at+jwt']` */
  accessTokenTypes(types: readonly string[]): this {
    return this.#set('accessTokenTypes', types);
  }

  /** Where the roles are: a claim path or a function of the claims. @defaultValue `'roles'` */
  rolesClaim(reader: ClaimReader): this {
    return this.#set('rolesClaim', reader);
  }

  /** Where the authorities are (`'scope'` reads OAuth scopes). @defaultValue `'authorities'` */
  authoritiesClaim(reader: ClaimReader): this {
    return this.#set('authoritiesClaim', reader);
  }

  /** Claims copied to the user's attributes. @defaultValue `[]` */
  attributeClaims(names: readonly string[]): this {
    return this.#set('attributeClaims', names);
  }

  /** The clock in epoch milliseconds, for tests. @defaultValue `Date.now` */
  clock(clock: () => number): this {
    return this.#set('clock', clock);
  }

  /** The snapshot an authenticator works with. @internal */
  resolve(): JwtSettings {
    const settings: Omit<JwtDraft, 'input'> & { input?: unknown } = { ...this.#draft };
    delete settings.input;
    return Object.freeze(settings);
  }

  #applyOptions(options: JwtConfigOptions): void {
    rejectUnknownOptions('JwtConfig', options, [...KEY_OPTIONS, ...Object.keys(JWT_OPTIONS)]);
    const key = options.secret ?? options.key;
    if (options.secret !== undefined && options.key !== undefined) {
      throw new ConfigurationError('key', 'give secret or key, not both');
    }
    if (options.jwks !== undefined) {
      if (key !== undefined)
        throw new ConfigurationError('jwks', 'cannot be combined with a secret or key');
      this.#draft.jwks = readJwks(options.jwks);
      this.#draft.algorithms = ['RS256'];
    } else if (key !== undefined) {
      this.#setKey(key);
    } else {
      throw new ConfigurationError('secret', 'a JwtConfig needs a secret, a key or jwks');
    }
    if (options.algorithm !== undefined && options.algorithms !== undefined) {
      throw new ConfigurationError('algorithm', 'give algorithm or algorithms, not both');
    }
    applyOptions(JWT_OPTIONS, this.#draft, options);
  }

  /** Validates and writes one option through its row of {@link JWT_OPTIONS}. */
  #set<O extends Option>(option: O, value: RowValue<(typeof JWT_OPTIONS)[O]>): this {
    setOption(JWT_OPTIONS, this.#draft, option, value);
    return this;
  }
}

function isOptions(value: unknown): value is JwtConfigOptions {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return false;
  if (typeof (value as { kty?: unknown }).kty === 'string') return false; // a JWK
  if ('privateKey' in value || 'publicKey' in value) return false; // a key pair
  return Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null;
}

/**
 * Refuses a missing key before anything else reads it: `new JwtConfig(process.env.SECRET)`
 * with the variable unset must say so, not that the value is not a PEM key.
 */
function requirePresent(input: unknown): void {
  if (input === undefined || input === null) {
    throw new ConfigurationError(
      'secret',
      `is missing (got ${String(input)}, e.g. an unset environment variable): pass an HMAC secret of at least 32 bytes, a key, or { jwks }`,
    );
  }
  if (typeof input === 'string' && input.trim() === '') {
    throw new ConfigurationError(
      'secret',
      'is empty (e.g. an environment variable set to ""): pass an HMAC secret of at least 32 bytes or a key',
    );
  }
}
