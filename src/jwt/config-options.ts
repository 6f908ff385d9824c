import { ConfigurationError } from '../core/errors.js';
import { rowsOf, type OptionRow } from '../lib/config-table.js';
import { rejectUnknownOptions, requireInteger, requireName } from '../core/validate.js';
import {
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

/**
 * The settings as the setters write them, and the key input the algorithms are
 * checked against; {@link JwtConfig.resolve} snapshots them as {@link JwtSettings}.
 *
 * @internal
 */
export type JwtDraft = { -readonly [K in keyof JwtSettings]: JwtSettings[K] } & { input: unknown };

/** The options that give the key (read by the constructor, not by a setter). @internal */
export const KEY_OPTIONS = ['secret', 'key', 'jwks'] as const;

const DAY = 86_400;
const row = rowsOf<JwtDraft>();
const HS256: readonly JwtAlgorithm[] = Object.freeze(['HS256']);

/**
 * Every option of {@link JwtConfigOptions} but the key ({@link KEY_OPTIONS}), once:
 * the setting it writes, its default and its check (whose error names the option
 * as the setter does, e.g. `expirationSeconds`). The setters, the options object, the
 * unknown-option check and the defaults all come from here, in this order.
 *
 * @internal
 */
export const JWT_OPTIONS = {
  algorithm: row('algorithms', HS256, (algorithm: JwtAlgorithm, draft) =>
    readAlgorithms([algorithm], draft),
  ),
  algorithms: row('algorithms', HS256, readAlgorithms),
  issuer: row('issuer', undefined, (issuer: string) => requireName('issuer', issuer)),
  audience: row('audience', undefined, (audience: string | readonly string[]) => {
    const list = typeof audience === 'string' ? [audience] : audience;
    if (!Array.isArray(list) || list.length === 0) {
      throw new ConfigurationError('audience', 'must be a string or a non-empty array of strings');
    }
    return Object.freeze(list.map((a) => requireName('audience', a)));
  }),
  expirationSeconds: row('expirationSeconds', 900, (seconds: number) =>
    requireInteger('expirationSeconds', seconds, 1, 366 * DAY),
  ),
  leewaySeconds: row('leewaySeconds', 30, (seconds: number) =>
    requireInteger('leewaySeconds', seconds, 0, 3600),
  ),
  headerName: row('headerName', 'authorization', (name: string) => {
    const value = requireName('headerName', name);
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u.test(value)) {
      throw new ConfigurationError('headerName', 'must be an HTTP header name');
    }
    return value.toLowerCase();
  }),
  headerPrefix: row('headerPrefix', 'Bearer ', (prefix: string) => {
    if (typeof prefix !== 'string' || !/^[\x20-\x7e]*$/u.test(prefix)) {
      throw new ConfigurationError('headerPrefix', 'must be printable ASCII');
    }
    return prefix;
  }),
  maxTokenLength: row('maxTokenLength', 8192, (length: number) =>
    requireInteger('maxTokenLength', length, 64, 1_000_000),
  ),
  cache: row(
    'cache',
    Object.freeze({ maxEntries: 10_000, maxAgeSeconds: 300 }),
    (options: JwtCacheOptions | false) => {
      if (options === false) return false;
      checkKeys('cache', options, ['maxEntries', 'maxAgeSeconds']);
      return Object.freeze({
        maxEntries: requireInteger('cache.maxEntries', options.maxEntries ?? 10_000, 1, 10_000_000),
        maxAgeSeconds: requireInteger('cache.maxAgeSeconds', options.maxAgeSeconds ?? 300, 1, DAY),
      });
    },
  ),
  accessTokenTypes: row(
    'accessTokenTypes',
    Object.freeze(['at+jwt']),
    (types: readonly string[]) => {
      if (!Array.isArray(types) || types.length === 0) {
        throw new ConfigurationError('accessTokenTypes', 'must list at least one type');
      }
      return Object.freeze(types.map((t) => normalizeType(requireName('accessTokenTypes', t))));
    },
  ),
  rolesClaim: row('rolesClaim', 'roles', (reader: ClaimReader) =>
    requireReader('rolesClaim', reader),
  ),
  authoritiesClaim: row('authoritiesClaim', 'authorities', (reader: ClaimReader) =>
    requireReader('authoritiesClaim', reader),
  ),
  attributeClaims: row('attributeClaims', Object.freeze([]), (names: readonly string[]) => {
    if (!Array.isArray(names))
      throw new ConfigurationError('attributeClaims', 'must be an array of claim names');
    return Object.freeze(names.map((n) => requireName('attributeClaims', n)));
  }),
  clock: row('clock', Date.now, (clock: () => number) => {
    if (typeof clock !== 'function')
      throw new ConfigurationError('clock', 'must be a function returning epoch milliseconds');
    return clock;
  }),
} satisfies {
  readonly [K in Exclude<keyof JwtConfigOptions, (typeof KEY_OPTIONS)[number]>]-?: OptionRow<
    JwtDraft,
    keyof JwtDraft,
    NonNullable<JwtConfigOptions[K]>
  >;
};

/**
 * Checks the algorithms against the key input (HMAC never with a JWKS; each must
 * fit the key) and, with a key, re-reads the key pair for them into `draft.keys`.
 */
function readAlgorithms(
  algorithms: readonly JwtAlgorithm[],
  draft: JwtDraft,
): readonly JwtAlgorithm[] {
  if (!Array.isArray(algorithms) || algorithms.length === 0) {
    throw new ConfigurationError('algorithms', 'must list at least one algorithm');
  }
  const list = [...new Set(algorithms.map((a) => requireAlgorithm(a)))];
  if (draft.jwks && list.some(isHmac)) {
    throw new ConfigurationError(
      'algorithm',
      'a JWKS verifies asymmetric signatures only: HMAC algorithms need a shared secret',
    );
  }
  if (draft.input !== undefined) {
    let keys: KeyPair | undefined;
    for (const algorithm of list) keys = readKeys(draft.input, algorithm);
    draft.keys = keys;
  }
  return Object.freeze(list);
}

/** `application/at+jwt` and `AT+JWT` are `at+jwt` (RFC 7515 §4.1.9). @internal */
export function normalizeType(type: string): string {
  const lower = type.toLowerCase();
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
}

/** Reads the `jwks` option into its settings. @internal */
export function readJwks(input: string | URL | JwksOptions): NonNullable<JwtSettings['jwks']> {
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
