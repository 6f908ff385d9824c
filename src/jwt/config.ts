import { ConfigurationError } from '../core/errors.js';
import { rejectUnknownOptions, requireInteger, requireName } from '../lib/validate.js';
import {
  defaultAlgorithm,
  isHmac,
  readKeys,
  requireAlgorithm,
  type JwtAlgorithm,
  type JwtKeyInput,
  type KeyPair,
} from './keys.js';

/** Reads roles or authorities from a claims set: a claim path (`realm_access.roles`) or a function. */
export type ClaimReader = string | ((claims: Readonly<Record<string, unknown>>) => unknown);

/** Options of resource-server mode (verifying tokens of an identity provider by its JWKS). */
export interface JwksOptions {
  /** The provider's JWKS URL (`https:`; `http:` only on a loopback host). */
  readonly url: string | URL;
  /** How long a fetched key set is used before it is fetched again, in seconds. @defaultValue `600` */
  readonly cacheMaxAgeSeconds?: number;
  /** The least time between two fetches (e.g. for an unknown `kid`), in seconds. @defaultValue `30` */
  readonly cooldownSeconds?: number;
  /** How long a fetch may take, in milliseconds. @defaultValue `5000` */
  readonly timeoutMs?: number;
}

/** Options of the verified-token cache. */
export interface JwtCacheOptions {
  /** How many verified tokens are kept. @defaultValue `10_000` */
  readonly maxEntries?: number;
  /**
   * How long a verification is reused at most, in seconds (never past the token's
   * `exp`). Bounds how long a token signed by a key removed from a JWKS stays accepted.
   * @defaultValue `300`
   */
  readonly maxAgeSeconds?: number;
}

/** The plain-object form of {@link JwtConfig}, e.g. read from configuration. */
export interface JwtConfigOptions {
  /** The HMAC secret or key (see {@link JwtKeyInput}); or use `jwks`. */
  readonly secret?: JwtKeyInput;
  /** Synonym of `secret` for asymmetric keys. */
  readonly key?: JwtKeyInput;
  /** Resource-server mode: verify tokens of an identity provider through its JWKS URL. */
  readonly jwks?: string | URL | JwksOptions;
  /** @defaultValue `'HS256'` (with a key), `['RS256']` (with `jwks`) */
  readonly algorithm?: JwtAlgorithm;
  /** The algorithms verification accepts (all of the key's family); the first signs. */
  readonly algorithms?: readonly JwtAlgorithm[];
  readonly issuer?: string;
  readonly audience?: string | readonly string[];
  /** Access-token lifetime in seconds. @defaultValue `900` (15 minutes) */
  readonly expirationSeconds?: number;
  /** Clock-skew tolerance for `exp`, `nbf` and `iat`, in seconds. @defaultValue `30` */
  readonly leewaySeconds?: number;
  /** @defaultValue `'Authorization'` */
  readonly headerName?: string;
  /** @defaultValue `'Bearer '` */
  readonly headerPrefix?: string;
  /** The longest token decoded, in characters. @defaultValue `8192` */
  readonly maxTokenLength?: number;
  /** The verified-token cache, or `false`. @defaultValue on: `{ maxEntries: 10_000, maxAgeSeconds: 300 }` */
  readonly cache?: JwtCacheOptions | false;
  /**
   * The `typ` header values accepted for access tokens (compared case-insensitively,
   * with or without `application/`); a `token_use: "access"` claim (Amazon Cognito)
   * is accepted too. Tokens of this library always carry `at+jwt` (RFC 9068).
   * @defaultValue `['at+jwt']`
   */
  readonly accessTokenTypes?: readonly string[];
  /** Where roles are in the claims. @defaultValue `'roles'` */
  readonly rolesClaim?: ClaimReader;
  /** Where authorities are (a space-separated string like `scope` is split). @defaultValue `'authorities'` */
  readonly authoritiesClaim?: ClaimReader;
  /** Claims copied to the user's attributes (`principal.attributes.<name>`). @defaultValue `[]` */
  readonly attributeClaims?: readonly string[];
  /** The clock in epoch milliseconds (tests). @defaultValue `Date.now` */
  readonly clock?: () => number;
}

/** The resolved configuration. @internal */
export interface JwtSettings {
  readonly keys: KeyPair | undefined;
  readonly jwks: (Required<Omit<JwksOptions, 'url'>> & { readonly url: URL }) | undefined;
  readonly algorithms: readonly JwtAlgorithm[];
  readonly issuer: string | undefined;
  readonly audience: readonly string[] | undefined;
  readonly expirationSeconds: number;
  readonly leewaySeconds: number;
  readonly headerName: string;
  readonly headerPrefix: string;
  readonly maxTokenLength: number;
  readonly cache: Required<JwtCacheOptions> | false;
  readonly accessTokenTypes: readonly string[];
  readonly rolesClaim: ClaimReader;
  readonly authoritiesClaim: ClaimReader;
  readonly attributeClaims: readonly string[];
  readonly clock: () => number;
}

const OPTIONS = [
  'secret',
  'key',
  'jwks',
  'algorithm',
  'algorithms',
  'issuer',
  'audience',
  'expirationSeconds',
  'leewaySeconds',
  'headerName',
  'headerPrefix',
  'maxTokenLength',
  'cache',
  'accessTokenTypes',
  'rolesClaim',
  'authoritiesClaim',
  'attributeClaims',
  'clock',
];

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
  #input: unknown;
  #keys: KeyPair | undefined;
  #jwks: JwtSettings['jwks'];
  #algorithms: readonly JwtAlgorithm[] = ['HS256'];
  #issuer: string | undefined;
  #audience: readonly string[] | undefined;
  #expirationSeconds = 900;
  #leewaySeconds = 30;
  #headerName = 'authorization';
  #headerPrefix = 'Bearer ';
  #maxTokenLength = 8192;
  #cache: Required<JwtCacheOptions> | false = { maxEntries: 10_000, maxAgeSeconds: 300 };
  #accessTokenTypes: readonly string[] = ['at+jwt'];
  #rolesClaim: ClaimReader = 'roles';
  #authoritiesClaim: ClaimReader = 'authorities';
  #attributeClaims: readonly string[] = [];
  #clock: () => number = Date.now;

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
    this.#keys = readKeys(input, algorithm);
    this.#input = input;
    this.#algorithms = Object.freeze([algorithm]);
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
    return this.algorithms([algorithm]);
  }

  /**
   * The algorithms accepted when verifying (the first also signs). All must fit the
   * key: HMAC algorithms never mix with asymmetric ones.
   */
  algorithms(algorithms: readonly JwtAlgorithm[]): this {
    if (!Array.isArray(algorithms) || algorithms.length === 0) {
      throw new ConfigurationError('algorithms', 'must list at least one algorithm');
    }
    const list = [...new Set(algorithms.map((a) => requireAlgorithm(a)))];
    if (this.#jwks && list.some(isHmac)) {
      throw new ConfigurationError(
        'algorithm',
        'a JWKS verifies asymmetric signatures only: HMAC algorithms need a shared secret',
      );
    }
    if (this.#input !== undefined) {
      let keys: KeyPair | undefined;
      for (const algorithm of list) keys = readKeys(this.#input, algorithm);
      this.#keys = keys;
    }
    this.#algorithms = Object.freeze(list);
    return this;
  }

  /** The issuer: the `iss` of issued tokens, and the only one accepted. */
  issuer(issuer: string): this {
    this.#issuer = requireName('issuer', issuer);
    return this;
  }

  /** The audience(s): the `aud` of issued tokens; a token is accepted when its `aud` names any of them. */
  audience(audience: string | readonly string[]): this {
    const list = typeof audience === 'string' ? [audience] : audience;
    if (!Array.isArray(list) || list.length === 0) {
      throw new ConfigurationError('audience', 'must be a string or a non-empty array of strings');
    }
    this.#audience = Object.freeze(list.map((a) => requireName('audience', a)));
    return this;
  }

  /** Access-token lifetime in seconds. @defaultValue `900` */
  expirationSecs(seconds: number): this {
    this.#expirationSeconds = requireInteger('expirationSecs', seconds, 1, 366 * DAY);
    return this;
  }

  /** Access-token lifetime in hours. */
  expirationHours(hours: number): this {
    return this.expirationSecs(requireInteger('expirationHours', hours, 1, 366 * 24) * 3600);
  }

  /** Access-token lifetime in days. */
  expirationDays(days: number): this {
    return this.expirationSecs(requireInteger('expirationDays', days, 1, 366) * DAY);
  }

  /** Clock-skew tolerance for `exp`, `nbf` and `iat`, in seconds. @defaultValue `30` */
  leewaySecs(seconds: number): this {
    this.#leewaySeconds = requireInteger('leewaySecs', seconds, 0, 3600);
    return this;
  }

  /** The request header the token is read from. @defaultValue `'Authorization'` */
  headerName(name: string): this {
    const value = requireName('headerName', name);
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u.test(value)) {
      throw new ConfigurationError('headerName', 'must be an HTTP header name');
    }
    this.#headerName = value.toLowerCase();
    return this;
  }

  /** What precedes the token in the header (compared case-insensitively). @defaultValue `'Bearer '` */
  headerPrefix(prefix: string): this {
    if (typeof prefix !== 'string' || !/^[\x20-\x7e]*$/u.test(prefix)) {
      throw new ConfigurationError('headerPrefix', 'must be printable ASCII');
    }
    this.#headerPrefix = prefix;
    return this;
  }

  /** The longest token decoded, in characters. @defaultValue `8192` */
  maxTokenLength(length: number): this {
    this.#maxTokenLength = requireInteger('maxTokenLength', length, 64, 1_000_000);
    return this;
  }

  /** The verified-token cache, or `false` to verify every request. */
  cache(options: JwtCacheOptions | false): this {
    if (options === false) {
      this.#cache = false;
      return this;
    }
    checkKeys('cache', options, ['maxEntries', 'maxAgeSeconds']);
    this.#cache = Object.freeze({
      maxEntries: requireInteger('cache.maxEntries', options.maxEntries ?? 10_000, 1, 10_000_000),
      maxAgeSeconds: requireInteger('cache.maxAgeSeconds', options.maxAgeSeconds ?? 300, 1, DAY),
    });
    return this;
  }

  /** The `typ` values accepted for access tokens. @defaultValue `['at+jwt']` */
  accessTokenTypes(types: readonly string[]): this {
    if (!Array.isArray(types) || types.length === 0) {
      throw new ConfigurationError('accessTokenTypes', 'must list at least one type');
    }
    this.#accessTokenTypes = Object.freeze(
      types.map((t) => normalizeType(requireName('accessTokenTypes', t))),
    );
    return this;
  }

  /** Where the roles are: a claim path or a function of the claims. @defaultValue `'roles'` */
  rolesClaim(reader: ClaimReader): this {
    this.#rolesClaim = requireReader('rolesClaim', reader);
    return this;
  }

  /** Where the authorities are (`'scope'` reads OAuth scopes). @defaultValue `'authorities'` */
  authoritiesClaim(reader: ClaimReader): this {
    this.#authoritiesClaim = requireReader('authoritiesClaim', reader);
    return this;
  }

  /** Claims copied to the user's attributes. @defaultValue `[]` */
  attributeClaims(names: readonly string[]): this {
    if (!Array.isArray(names))
      throw new ConfigurationError('attributeClaims', 'must be an array of claim names');
    this.#attributeClaims = Object.freeze(names.map((n) => requireName('attributeClaims', n)));
    return this;
  }

  /** The clock in epoch milliseconds, for tests. @defaultValue `Date.now` */
  clock(clock: () => number): this {
    if (typeof clock !== 'function')
      throw new ConfigurationError('clock', 'must be a function returning epoch milliseconds');
    this.#clock = clock;
    return this;
  }

  /** The snapshot an authenticator works with. @internal */
  resolve(): JwtSettings {
    return Object.freeze({
      keys: this.#keys,
      jwks: this.#jwks,
      algorithms: this.#algorithms,
      issuer: this.#issuer,
      audience: this.#audience,
      expirationSeconds: this.#expirationSeconds,
      leewaySeconds: this.#leewaySeconds,
      headerName: this.#headerName,
      headerPrefix: this.#headerPrefix,
      maxTokenLength: this.#maxTokenLength,
      cache: this.#cache,
      accessTokenTypes: this.#accessTokenTypes,
      rolesClaim: this.#rolesClaim,
      authoritiesClaim: this.#authoritiesClaim,
      attributeClaims: this.#attributeClaims,
      clock: this.#clock,
    });
  }

  #applyOptions(options: JwtConfigOptions): void {
    checkKeys('JwtConfig', options, OPTIONS);
    const key = options.secret ?? options.key;
    if (options.secret !== undefined && options.key !== undefined) {
      throw new ConfigurationError('key', 'give secret or key, not both');
    }
    if (options.jwks !== undefined) {
      if (key !== undefined)
        throw new ConfigurationError('jwks', 'cannot be combined with a secret or key');
      this.#jwks = readJwks(options.jwks);
      this.#algorithms = ['RS256'];
    } else if (key !== undefined) {
      this.#setKey(key);
    } else {
      throw new ConfigurationError('secret', 'a JwtConfig needs a secret, a key or jwks');
    }
    if (options.algorithm !== undefined && options.algorithms !== undefined) {
      throw new ConfigurationError('algorithm', 'give algorithm or algorithms, not both');
    }
    if (options.algorithm !== undefined) this.algorithm(options.algorithm);
    if (options.algorithms !== undefined) this.algorithms(options.algorithms);
    if (options.issuer !== undefined) this.issuer(options.issuer);
    if (options.audience !== undefined) this.audience(options.audience);
    if (options.expirationSeconds !== undefined) this.expirationSecs(options.expirationSeconds);
    if (options.leewaySeconds !== undefined) this.leewaySecs(options.leewaySeconds);
    if (options.headerName !== undefined) this.headerName(options.headerName);
    if (options.headerPrefix !== undefined) this.headerPrefix(options.headerPrefix);
    if (options.maxTokenLength !== undefined) this.maxTokenLength(options.maxTokenLength);
    if (options.cache !== undefined) this.cache(options.cache);
    if (options.accessTokenTypes !== undefined) this.accessTokenTypes(options.accessTokenTypes);
    if (options.rolesClaim !== undefined) this.rolesClaim(options.rolesClaim);
    if (options.authoritiesClaim !== undefined) this.authoritiesClaim(options.authoritiesClaim);
    if (options.attributeClaims !== undefined) this.attributeClaims(options.attributeClaims);
    if (options.clock !== undefined) this.clock(options.clock);
  }
}

/** `application/at+jwt` and `AT+JWT` are `at+jwt` (RFC 7515 §4.1.9). @internal */
export function normalizeType(type: string): string {
  const lower = type.toLowerCase();
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
}

function isOptions(value: unknown): value is JwtConfigOptions {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return false;
  if (typeof (value as { kty?: unknown }).kty === 'string') return false; // a JWK
  if ('privateKey' in value || 'publicKey' in value) return false; // a key pair
  return Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null;
}

function readJwks(input: string | URL | JwksOptions): NonNullable<JwtSettings['jwks']> {
  const options: JwksOptions =
    typeof input === 'string' || input instanceof URL ? { url: input } : input;
  checkKeys('jwks', options, ['url', 'cacheMaxAgeSeconds', 'cooldownSeconds', 'timeoutMs']);
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new ConfigurationError('jwks.url', 'must be an absolute URL');
  }
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new ConfigurationError('jwks.url', 'must use https: (http: only on a loopback host)');
  }
  return Object.freeze({
    url,
    cacheMaxAgeSeconds: requireInteger(
      'jwks.cacheMaxAgeSeconds',
      options.cacheMaxAgeSeconds ?? 600,
      1,
      DAY,
    ),
    cooldownSeconds: requireInteger('jwks.cooldownSeconds', options.cooldownSeconds ?? 30, 0, 3600),
    timeoutMs: requireInteger('jwks.timeoutMs', options.timeoutMs ?? 5000, 100, 60_000),
  });
}

function requireReader(option: string, reader: unknown): ClaimReader {
  if (typeof reader === 'function') return reader as ClaimReader;
  const path = requireName(option, reader);
  if (!/^[^.\s]+(?:\.[^.\s]+)*$/u.test(path)) {
    throw new ConfigurationError(
      option,
      'must be a claim name or a dotted path like realm_access.roles',
    );
  }
  return path;
}

function checkKeys(owner: string, options: unknown, known: readonly string[]): void {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(owner, 'must be an object');
  }
  rejectUnknownOptions(owner, options, known);
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
