import { ConfigurationError } from '../core/errors.js';
import { OAuth2Client } from './client.js';
import { OAuth2Config, type OAuth2ConfigOptions } from './config.js';
import { oauth2Error } from './error-mapping.js';
import type { OAuth2ClientOptions } from './transport.js';
import type { OAuth2ClientLike } from './types.js';

/**
 * The OAuth2 clients of an application by registration id (SPEC.md's
 * `OAuth2ClientRepository`), e.g. `google` and `github` for
 * `/oauth2/authorization/{registrationId}`. Registration ids are unique.
 *
 * @example
 * ```ts
 * const clients = await OAuth2ClientRepository.create([googleConfig, githubConfig]);
 * const google = clients.get('google');
 * ```
 */
export class OAuth2ClientRepository<
  Client extends Pick<OAuth2ClientLike, 'registrationId'> = OAuth2ClientLike,
> implements Iterable<Client> {
  readonly #clients: ReadonlyMap<string, Client>;

  private constructor(clients: readonly Client[]) {
    const map = new Map<string, Client>();
    for (const client of clients) {
      if (map.has(client.registrationId)) {
        throw new ConfigurationError(
          'registrationId',
          `${JSON.stringify(client.registrationId)} is registered twice`,
        );
      }
      map.set(client.registrationId, client);
    }
    this.#clients = map;
  }

  /**
   * Creates a client per configuration (OpenID Connect providers are discovered, all at
   * once); fails when a registration id repeats or a client cannot be created.
   */
  static async create(
    configs: readonly (OAuth2Config | OAuth2ConfigOptions)[],
    options: OAuth2ClientOptions = {},
  ): Promise<OAuth2ClientRepository<OAuth2Client>> {
    const list: unknown = configs;
    if (!Array.isArray(list) || list.length === 0) {
      throw new ConfigurationError('configs', 'must list at least one OAuth2Config');
    }
    const all = configs.map((c) => (c instanceof OAuth2Config ? c : new OAuth2Config(c)));
    // Duplicates fail before any discovery request.
    OAuth2ClientRepository.from(all.map((c) => ({ registrationId: c.resolve().registrationId })));
    const clients = await Promise.all(all.map((c) => OAuth2Client.create(c, options)));
    return new OAuth2ClientRepository(clients);
  }

  /** A repository of clients that already exist. */
  static from<Client extends Pick<OAuth2ClientLike, 'registrationId'>>(
    clients: Iterable<Client>,
  ): OAuth2ClientRepository<Client> {
    return new OAuth2ClientRepository([...clients]);
  }

  /** The client registered under `registrationId`; `ERR_OAUTH2_UNKNOWN_REGISTRATION` otherwise. */
  get(registrationId: string): Client {
    const client = this.find(registrationId);
    if (client === undefined) throw oauth2Error('ERR_OAUTH2_UNKNOWN_REGISTRATION');
    return client;
  }

  /** The client registered under `registrationId`, or `undefined`. */
  find(registrationId: string): Client | undefined {
    return typeof registrationId === 'string' ? this.#clients.get(registrationId) : undefined;
  }

  /** Whether a client is registered under `registrationId`. */
  has(registrationId: string): boolean {
    return this.find(registrationId) !== undefined;
  }

  /** The registration ids, in the order given. */
  get registrationIds(): readonly string[] {
    return [...this.#clients.keys()];
  }

  [Symbol.iterator](): Iterator<Client> {
    return this.#clients.values();
  }
}
