import * as oauth from 'oauth4webapi';
import { OAuth2Config, type OAuth2ConfigOptions, type OAuth2Settings } from './config.js';
import { readExpectations, readParameters } from './callback-input.js';
import { chooseMethod, discover, staticMetadata } from './discovery.js';
import { callbackError, oauth2Error, stepError, tokenResponseError } from './error-mapping.js';
import type { ClientAuthenticationMethod, OAuth2Provider } from './providers.js';
import { oidcProfile, toTokens, toUser } from './results.js';
import { isJwt, Transport, type OAuth2ClientOptions } from './transport.js';
import type {
  OAuth2ClientLike,
  OAuth2Expectations,
  OAuth2LoginResult,
  OAuth2Tokens,
} from './types.js';

/**
 * An OAuth2 / OpenID Connect client of one provider registration (SPEC.md's
 * `OAuth2Client`): the authorization-code flow with S256 PKCE, `state` and (OIDC)
 * `nonce`. oauth4webapi does every protocol check: discovery and issuer, the
 * authorization response (`state`, RFC 9207 `iss`, errors), the code exchange, the ID
 * token (issuer, audience, `azp`, expiry, nonce, algorithm, signature through the
 * provider's JWKS) and the userinfo `sub`.
 *
 * @example
 * ```ts
 * const client = await OAuth2Client.create(config);
 * // GET /login: keep state, pkceVerifier and nonce (sealed cookie), redirect to url
 * const [url, state, pkceVerifier, nonce] = await client.authorizationUrl();
 * // GET /callback
 * const { user, tokens } = await client.handleCallback(request.url, { state, pkceVerifier, nonce });
 * ```
 */
export class OAuth2Client implements OAuth2ClientLike {
  /** The id this client is registered under (`google`). */
  readonly registrationId: string;
  /** The provider's issuer (recorded in the login transaction). */
  readonly issuer: string;
  readonly provider: OAuth2Provider;
  /** The scopes asked for. */
  readonly scopes: readonly string[];
  /** The registered callback URL. */
  readonly redirectUri: string;
  /**
   * How the provider returns to the callback: `'query'` (a GET), or `'form_post'` (a
   * cross-site POST, Apple with `name`/`email` scopes): pass the form body to
   * {@link OAuth2Client.handleCallback} as `URLSearchParams`.
   */
  readonly responseMode: 'query' | 'form_post';
  /** The token endpoint client authentication in use. */
  readonly clientAuthentication: ClientAuthenticationMethod;

  readonly #settings: OAuth2Settings;
  readonly #as: oauth.AuthorizationServer;
  readonly #transport: Transport;
  readonly #userInfo: boolean;

  private constructor(
    settings: OAuth2Settings,
    as: oauth.AuthorizationServer,
    transport: Transport,
    method: ClientAuthenticationMethod,
  ) {
    this.#settings = settings;
    this.#as = as;
    this.#transport = transport;
    this.registrationId = settings.registrationId;
    this.issuer = as.issuer;
    this.provider = settings.provider;
    this.scopes = settings.scopes;
    this.redirectUri = settings.redirectUri;
    this.responseMode = settings.responseMode;
    this.clientAuthentication = method;
    this.#userInfo =
      as.userinfo_endpoint !== undefined &&
      settings.scopes.some((scope) => scope !== 'openid' && scope !== 'offline_access');
  }

  /**
   * Creates the client; an OpenID Connect provider is discovered first (its metadata
   * must name exactly the configured issuer). A discovery failure is an `OAuth2Error`
   * `ERR_OAUTH2_DISCOVERY`, never a downgrade to plain OAuth2.
   */
  static async create(
    config: OAuth2Config | OAuth2ConfigOptions,
    options: OAuth2ClientOptions = {},
  ): Promise<OAuth2Client> {
    const settings = (config instanceof OAuth2Config ? config : new OAuth2Config(config)).resolve();
    const transport = new Transport(options);
    const provider = settings.provider;
    const as = provider.oidc
      ? await discover(provider.issuer, transport)
      : staticMetadata(provider);
    return new OAuth2Client(settings, as, transport, chooseMethod(settings, as));
  }

  /**
   * A new authorization request: `[url, state, pkceVerifier, nonce]`, fresh random
   * values from oauth4webapi each call, S256 PKCE always, a nonce for OpenID Connect
   * (`undefined` for plain OAuth2). Keep the three values for {@link handleCallback}.
   */
  async authorizationUrl(): Promise<readonly [URL, string, string, string | undefined]> {
    const state = oauth.generateRandomState();
    const pkceVerifier = oauth.generateRandomCodeVerifier();
    const nonce = this.provider.oidc ? oauth.generateRandomNonce() : undefined;
    const url = new URL(this.#as.authorization_endpoint ?? '');
    const query = url.searchParams;
    for (const [name, value] of Object.entries(this.#settings.authorizationParams)) {
      query.set(name, value);
    }
    query.set('client_id', this.#settings.clientId);
    query.set('redirect_uri', this.redirectUri);
    query.set('response_type', 'code');
    query.set('scope', this.scopes.join(' '));
    query.set('state', state);
    query.set('code_challenge', await oauth.calculatePKCECodeChallenge(pkceVerifier));
    query.set('code_challenge_method', 'S256');
    if (nonce !== undefined) query.set('nonce', nonce);
    if (this.responseMode === 'form_post') query.set('response_mode', 'form_post');
    return Object.freeze([url, state, pkceVerifier, nonce] as const);
  }

  /**
   * Validates the authorization response, exchanges the code, validates the ID token
   * and userinfo (or reads the provider's profile API), and returns the user and the
   * tokens; throws an `OAuth2Error` otherwise.
   *
   * @param currentUrl - the callback URL as received (absolute, or a path resolved
   *   against the redirect URI), or the form body of a `form_post` response
   * @param expected - the values {@link authorizationUrl} returned for this login
   */
  async handleCallback(
    currentUrl: URL | string | URLSearchParams,
    expected: OAuth2Expectations,
  ): Promise<OAuth2LoginResult> {
    const { state, pkceVerifier, nonce } = readExpectations(expected, this.provider.oidc);
    const parameters = readParameters(currentUrl, this.redirectUri);
    const client = this.#transport.client(this.#settings.clientId);
    let callback: URLSearchParams;
    try {
      callback = oauth.validateAuthResponse(this.#as, client, parameters, state);
    } catch (error) {
      throw callbackError(error, parameters, this.#as, state);
    }
    let response: Response;
    try {
      response = await oauth.authorizationCodeGrantRequest(
        this.#as,
        client,
        await this.#clientAuth(),
        callback,
        this.redirectUri,
        pkceVerifier,
        this.#transport.options(this.#as.token_endpoint),
      );
    } catch (error) {
      throw error instanceof oauth.OperationProcessingError
        ? oauth2Error('ERR_OAUTH2_INVALID_RESPONSE', error)
        : stepError(error, 'ERR_OAUTH2_TOKEN_EXCHANGE');
    }
    const oidc = this.provider.oidc;
    let result: oauth.TokenEndpointResponse;
    try {
      result = await oauth.processAuthorizationCodeResponse(
        this.#as,
        client,
        response,
        nonce === undefined
          ? {}
          : { expectedNonce: nonce, requireIdToken: true, maxAge: this.#maxAge() },
      );
    } catch (error) {
      throw tokenResponseError(error, oidc);
    }
    const profile = oidc
      ? await this.#oidcProfile(client, response, result)
      : await this.#readProfile(result.access_token);
    return Object.freeze({
      user: toUser(this.registrationId, profile),
      tokens: toTokens(result, oidc),
    });
  }

  /**
   * A new token set from a stored provider refresh token (RFC 6749 §6). A refreshed ID
   * token is validated like the first one, signature included, and with
   * `expectedSubject` (the user's `subject`) must name the same user (OIDC Core §12.2).
   * The provider may rotate the refresh token: keep `refreshToken` when it is set, else
   * the old one.
   */
  async refresh(
    refreshToken: string,
    options: { readonly expectedSubject?: string } = {},
  ): Promise<OAuth2Tokens> {
    if (typeof refreshToken !== 'string' || refreshToken.length === 0) {
      throw oauth2Error('ERR_OAUTH2_REFRESH');
    }
    const expectedSubject = options.expectedSubject;
    const client = this.#transport.client(this.#settings.clientId);
    try {
      const response = await oauth.refreshTokenGrantRequest(
        this.#as,
        client,
        await this.#clientAuth(),
        refreshToken,
        this.#transport.options(this.#as.token_endpoint),
      );
      const result = await oauth.processRefreshTokenResponse(this.#as, client, response);
      const withIdToken = this.provider.oidc && result.id_token !== undefined;
      if (withIdToken) {
        await this.#verifySignature(response);
        const subject = oauth.getValidatedIdTokenClaims(result)?.sub;
        if (expectedSubject !== undefined && subject !== expectedSubject) {
          throw new Error('The refreshed ID token names another subject');
        }
      }
      return toTokens(result, withIdToken);
    } catch (error) {
      throw stepError(error, 'ERR_OAUTH2_REFRESH');
    }
  }

  async #oidcProfile(
    client: oauth.Client,
    response: Response,
    result: oauth.TokenEndpointResponse,
  ) {
    try {
      await this.#verifySignature(response);
    } catch (error) {
      throw stepError(error, 'ERR_OAUTH2_ID_TOKEN');
    }
    const idToken = oauth.getValidatedIdTokenClaims(result);
    if (idToken === undefined) throw oauth2Error('ERR_OAUTH2_ID_TOKEN');
    let userInfo: oauth.UserInfoResponse | undefined;
    if (this.#userInfo) {
      try {
        const answer = await oauth.userInfoRequest(
          this.#as,
          client,
          result.access_token,
          this.#transport.options(this.#as.userinfo_endpoint),
        );
        userInfo = await oauth.processUserInfoResponse(this.#as, client, idToken.sub, answer);
        if (isJwt(answer)) await this.#verifySignature(answer);
      } catch (error) {
        throw stepError(error, 'ERR_OAUTH2_USERINFO');
      }
    }
    return oidcProfile(idToken, userInfo, this.provider.stringBooleans);
  }

  /**
   * oauth4webapi checks an ID token's claims and `alg` while processing the response but
   * its signature only here: with the provider's JWKS, asymmetric algorithms only
   * (`none` and HMAC are refused), a `kid` that must match a published key.
   */
  async #verifySignature(response: Response): Promise<void> {
    await oauth.validateApplicationLevelSignature(
      this.#as,
      response,
      this.#transport.options(this.#as.jwks_uri),
    );
  }

  async #readProfile(accessToken: string) {
    const reader = this.provider.reader;
    if (reader === undefined) throw oauth2Error('ERR_OAUTH2_USERINFO');
    try {
      return await reader({
        fetchJson: this.#transport.fetchJson(accessToken),
        scopes: this.scopes,
      });
    } catch (error) {
      throw stepError(error, 'ERR_OAUTH2_USERINFO');
    }
  }

  async #clientAuth(): Promise<oauth.ClientAuth> {
    const secret = await this.#settings.clientSecret();
    if (typeof secret !== 'string' || secret.length === 0) {
      throw new Error('The clientSecret function returned no secret');
    }
    return this.clientAuthentication === 'client_secret_post'
      ? oauth.ClientSecretPost(secret)
      : oauth.ClientSecretBasic(secret);
  }

  #maxAge(): number | typeof oauth.skipAuthTimeCheck {
    return this.#settings.maxAge ?? oauth.skipAuthTimeCheck;
  }
}
