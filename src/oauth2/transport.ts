import * as oauth from 'oauth4webapi';
import { ConfigurationError } from '../core/errors.js';
import { requireInteger } from '../core/validate.js';
import { checkKeys } from './options.js';
import { ProfileShapeError, type FetchJson } from './profile.js';
import { isLoopbackHttp } from './urls.js';

/** A `fetch`-compatible function used for every request to the provider. */
export type OAuth2Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** Options of {@link OAuth2Client.create}. */
export interface OAuth2ClientOptions {
  /** Used for every request to the provider (proxies, tracing, tests). @defaultValue `globalThis.fetch` */
  readonly fetch?: OAuth2Fetch;
  /**
   * The clock in epoch milliseconds (tests): ID token `exp`, `iat`, `nbf` and `auth_time`
   * are checked against it, with oauth4webapi's 30 s tolerance. @defaultValue `Date.now`
   */
  readonly clock?: () => number;
  /** How long one request to the provider may take, in milliseconds. @defaultValue `10_000` */
  readonly timeoutMs?: number;
}

/** Request options fit for every oauth4webapi request function. */
type RequestOptions = oauth.HttpRequestOptions<string, unknown>;
type CustomFetch = NonNullable<RequestOptions[typeof oauth.customFetch]>;

/** How requests reach the provider: fetch, timeouts, clock, loopback-only plain HTTP. @internal */
export class Transport {
  readonly #fetch: CustomFetch | undefined;
  readonly #clock: (() => number) | undefined;
  readonly #timeoutMs: number;

  constructor(options: OAuth2ClientOptions) {
    checkKeys('OAuth2ClientOptions', options, ['fetch', 'clock', 'timeoutMs']);
    if (options.fetch !== undefined && typeof options.fetch !== 'function') {
      throw new ConfigurationError('fetch', 'must be a fetch-compatible function');
    }
    if (options.clock !== undefined && typeof options.clock !== 'function') {
      throw new ConfigurationError('clock', 'must be a function returning epoch milliseconds');
    }
    // oauth4webapi calls it with fetch's own arguments (string URL, RequestInit-shaped options).
    this.#fetch = options.fetch as CustomFetch | undefined;
    this.#clock = options.clock;
    this.#timeoutMs = requireInteger('timeoutMs', options.timeoutMs ?? 10_000, 100, 120_000);
  }

  /**
   * The request options for one endpoint: the timeout, the custom fetch, and plain
   * `http:` allowed only when that endpoint is on a loopback host.
   */
  options(endpoint: string | URL | undefined): RequestOptions {
    const timeoutMs = this.#timeoutMs;
    const options: RequestOptions = { signal: () => AbortSignal.timeout(timeoutMs) };
    if (this.#fetch !== undefined) options[oauth.customFetch] = this.#fetch;
    if (isLoopbackHttp(endpoint)) {
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- plain HTTP to loopback only (tests, a local development provider)
      options[oauth.allowInsecureRequests] = true;
    }
    return options;
  }

  /** The client metadata for one operation (its clock skew follows the clock option). */
  client(clientId: string): oauth.Client {
    const clock = this.#clock;
    const skew = clock === undefined ? 0 : Math.round((clock() - Date.now()) / 1000);
    return { client_id: clientId, [oauth.clockSkew]: skew };
  }

  /** Reads JSON resources with an access token, through `protectedResourceRequest`. */
  fetchJson(accessToken: string): FetchJson {
    return async (url, headers = {}) => {
      const response = await oauth.protectedResourceRequest(
        accessToken,
        'GET',
        new URL(url),
        new Headers({ accept: 'application/json', ...headers }),
        null,
        this.options(url),
      );
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new ProfileShapeError(`has HTTP status ${response.status}`);
      }
      const type = response.headers.get('content-type') ?? '';
      if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/iu.test(type)) {
        await response.body?.cancel();
        throw new ProfileShapeError('is not JSON');
      }
      return (await response.json()) as unknown;
    };
  }
}

/** Whether a response is a JWT (a signed userinfo response). @internal */
export function isJwt(response: Response): boolean {
  const type = response.headers.get('content-type') ?? '';
  return type.split(';')[0]?.trim().toLowerCase() === 'application/jwt';
}
