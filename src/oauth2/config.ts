import { ConfigurationError } from '../core/errors.js';
import { requireName } from '../core/validate.js';
import { checkKeys, requireScopes } from './options.js';
import { OAuth2Provider, type ClientAuthenticationMethod } from './providers.js';
import { requireSecureUrl } from './urls.js';

/**
 * The client secret: a string, or a function that returns the current one (for
 * secrets that expire, such as Apple's JWT client secret: {@link appleClientSecret}).
 */
export type OAuth2ClientSecret = string | (() => string | Promise<string>);

/** The plain-object form of {@link OAuth2Config}, e.g. read from configuration. */
export interface OAuth2ConfigOptions {
  readonly clientId: string;
  readonly clientSecret: OAuth2ClientSecret;
  /** The callback URL registered at the provider (`https:`; `http:` only on a loopback host). */
  readonly redirectUri: string | URL;
  readonly provider: OAuth2Provider;
  /** @defaultValue the provider's default scopes */
  readonly scopes?: readonly string[];
  /** Extra authorization request parameters (`prompt`, `login_hint`, `hd`, `max_age`, …). @defaultValue `{}` */
  readonly authorizationParams?: Readonly<Record<string, string>>;
  /** The id the client is registered under (`/oauth2/authorization/{registrationId}`). @defaultValue the provider's name */
  readonly registrationId?: string;
  /** @defaultValue the provider's method */
  readonly clientAuthentication?: ClientAuthenticationMethod;
}

/** The resolved configuration. @internal */
export interface OAuth2Settings {
  readonly clientId: string;
  readonly clientSecret: () => Promise<string>;
  readonly redirectUri: string;
  readonly provider: OAuth2Provider;
  readonly scopes: readonly string[];
  readonly authorizationParams: Readonly<Record<string, string>>;
  readonly registrationId: string;
  readonly clientAuthentication: ClientAuthenticationMethod | undefined;
  /** From `authorizationParams.max_age`: the ID token's `auth_time` is then checked. */
  readonly maxAge: number | undefined;
  readonly responseMode: 'query' | 'form_post';
}

const OPTIONS = [
  'clientId',
  'clientSecret',
  'redirectUri',
  'provider',
  'scopes',
  'authorizationParams',
  'registrationId',
  'clientAuthentication',
];

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/u;

/** Parameters the client sets itself: an application value would weaken or break the flow. */
const RESERVED = new Set([
  'client_id',
  'client_secret',
  'redirect_uri',
  'response_type',
  'response_mode',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'code_verifier',
  'request',
  'request_uri',
]);

/**
 * The registration of an application at an identity provider (SPEC.md's
 * `OAuth2Config`): client id and secret, redirect URI, provider, scopes and extra
 * authorization parameters. Setters validate at once and return the same
 * configuration for chaining; {@link OAuth2Client.create} takes a snapshot.
 *
 * @example
 * ```ts
 * const google = new OAuth2Config(
 *   process.env.GOOGLE_CLIENT_ID!,
 *   process.env.GOOGLE_CLIENT_SECRET!,
 *   'https://app.example.com/login/oauth2/code/google',
 * )
 *   .provider(OAuth2Provider.Google)
 *   .authorizationParams({ prompt: 'select_account' });
 * const client = await OAuth2Client.create(google);
 * ```
 */
export class OAuth2Config {
  #clientId: string;
  #clientSecret: OAuth2ClientSecret;
  #redirectUri: string;
  #provider: OAuth2Provider | undefined;
  #scopes: readonly string[] | undefined;
  #authorizationParams: Readonly<Record<string, string>> = Object.freeze({});
  #registrationId: string | undefined;
  #clientAuthentication: ClientAuthenticationMethod | undefined;

  /**
   * @param clientId - the client id, or the plain options object ({@link OAuth2ConfigOptions})
   * @param clientSecret - the client secret (or a function returning it)
   * @param redirectUri - the callback URL registered at the provider
   */
  constructor(clientId: string, clientSecret: OAuth2ClientSecret, redirectUri: string | URL);
  constructor(options: OAuth2ConfigOptions);
  constructor(
    clientId: string | OAuth2ConfigOptions,
    clientSecret?: OAuth2ClientSecret,
    redirectUri?: string | URL,
  ) {
    if (typeof clientId === 'string') {
      this.#clientId = requireClientId(clientId);
      this.#clientSecret = requireSecret(clientSecret);
      this.#redirectUri = requireSecureUrl('redirectUri', redirectUri).href;
      return;
    }
    const options = clientId;
    checkKeys('OAuth2Config', options, OPTIONS);
    this.#clientId = requireClientId(options.clientId);
    this.#clientSecret = requireSecret(options.clientSecret);
    this.#redirectUri = requireSecureUrl('redirectUri', options.redirectUri).href;
    if ((options.provider as OAuth2Provider | undefined) === undefined) {
      throw new ConfigurationError('provider', 'is required');
    }
    this.provider(options.provider);
    if (options.scopes !== undefined) this.scopes(options.scopes);
    if (options.authorizationParams !== undefined) {
      this.authorizationParams(options.authorizationParams);
    }
    if (options.registrationId !== undefined) this.registrationId(options.registrationId);
    if (options.clientAuthentication !== undefined) {
      this.clientAuthentication(options.clientAuthentication);
    }
  }

  /** Builds a configuration from its plain-object form. */
  static fromOptions(options: OAuth2ConfigOptions): OAuth2Config {
    return new OAuth2Config(options);
  }

  /** The identity provider (`OAuth2Provider.Google`, `OAuth2Provider.okta({ domain })`, …). */
  provider(provider: OAuth2Provider): this {
    if (!(provider instanceof OAuth2Provider)) {
      throw new ConfigurationError(
        'provider',
        'must be an OAuth2Provider (OAuth2Provider.Google, …)',
      );
    }
    this.#provider = provider;
    this.#checkScopes();
    return this;
  }

  /** The scopes asked for, instead of the provider's defaults (OIDC providers need `openid`). */
  scopes(scopes: readonly string[]): this {
    this.#scopes = requireScopes('scopes', scopes);
    this.#checkScopes();
    return this;
  }

  /**
   * Extra authorization request parameters (`prompt`, `login_hint`, `hd`, `max_age`, …).
   * Parameters the flow's security rests on (`state`, `nonce`, `code_challenge`,
   * `redirect_uri`, `response_type`, `client_id`, `scope`, …) are refused.
   */
  authorizationParams(params: Readonly<Record<string, string>>): this {
    const input: unknown = params;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new ConfigurationError('authorizationParams', 'must be an object of strings');
    }
    const copy: Record<string, string> = {};
    for (const [name, value] of Object.entries(params)) {
      if (!/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/u.test(name)) {
        throw new ConfigurationError(
          'authorizationParams',
          `${JSON.stringify(name)} is not a parameter name`,
        );
      }
      if (RESERVED.has(name)) {
        throw new ConfigurationError(
          `authorizationParams.${name}`,
          name === 'scope' ? 'use scopes([...])' : 'is set by the client and cannot be overridden',
        );
      }
      if (typeof value !== 'string' || value.length > 4096 || CONTROL.test(value)) {
        throw new ConfigurationError(
          `authorizationParams.${name}`,
          'must be a string without control characters',
        );
      }
      if (name === 'max_age' && !/^\d{1,9}$/u.test(value)) {
        throw new ConfigurationError('authorizationParams.max_age', 'must be a number of seconds');
      }
      copy[name] = value;
    }
    this.#authorizationParams = Object.freeze(copy);
    return this;
  }

  /** The id the client is registered under. @defaultValue the provider's name */
  registrationId(id: string): this {
    const value = requireName('registrationId', id);
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/u.test(value)) {
      throw new ConfigurationError(
        'registrationId',
        'must be 1-64 letters, digits, ".", "_" or "-"',
      );
    }
    this.#registrationId = value;
    return this;
  }

  /** The token endpoint client authentication, instead of the provider's. */
  clientAuthentication(method: ClientAuthenticationMethod): this {
    const value: unknown = method;
    if (value !== 'client_secret_basic' && value !== 'client_secret_post') {
      throw new ConfigurationError(
        'clientAuthentication',
        'must be "client_secret_basic" or "client_secret_post"',
      );
    }
    this.#clientAuthentication = method;
    return this;
  }

  /** The snapshot a client works with. @internal */
  resolve(): OAuth2Settings {
    const provider = this.#provider;
    if (provider === undefined) {
      throw new ConfigurationError('provider', 'is required: call provider(OAuth2Provider.X)');
    }
    const scopes = this.#scopes ?? provider.scopes;
    const secret = this.#clientSecret;
    const maxAge = this.#authorizationParams.max_age;
    return Object.freeze({
      clientId: this.#clientId,
      clientSecret:
        typeof secret === 'string' ? () => Promise.resolve(secret) : async () => secret(),
      redirectUri: this.#redirectUri,
      provider,
      scopes,
      authorizationParams: this.#authorizationParams,
      registrationId: this.#registrationId ?? provider.name,
      clientAuthentication: this.#clientAuthentication ?? provider.clientAuthentication,
      maxAge: maxAge === undefined ? undefined : Number(maxAge),
      responseMode: scopes.some((s) => provider.formPostScopes.includes(s)) ? 'form_post' : 'query',
    });
  }

  #checkScopes(): void {
    if (this.#provider?.oidc === true && this.#scopes?.includes('openid') === false) {
      throw new ConfigurationError('scopes', 'an OpenID Connect provider needs the "openid" scope');
    }
  }
}

function requireClientId(value: unknown): string {
  const id = requireName('clientId', value);
  // RFC 6749 Appendix A.1: client_id = *VSCHAR
  if (!/^[\x20-\x7e]{1,512}$/u.test(id)) {
    throw new ConfigurationError('clientId', 'must be at most 512 printable ASCII characters');
  }
  return id;
}

function requireSecret(value: unknown): OAuth2ClientSecret {
  if (typeof value === 'function') return value as () => string | Promise<string>;
  if (typeof value !== 'string' || value.length === 0) {
    throw new ConfigurationError(
      'clientSecret',
      'must be a non-empty string or a function returning one',
    );
  }
  if (!/^[\x20-\x7e]+$/u.test(value)) {
    throw new ConfigurationError('clientSecret', 'must be printable ASCII');
  }
  return value;
}
