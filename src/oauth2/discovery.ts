import * as oauth from 'oauth4webapi';
import { oauth2Error } from './error-mapping.js';
import type { OAuth2Settings } from './config.js';
import type { ClientAuthenticationMethod, OAuth2Provider } from './providers.js';
import type { Transport } from './transport.js';
import { isSecureUrl } from './urls.js';

/**
 * OpenID Connect discovery through oauth4webapi: `discoveryRequest` +
 * `processDiscoveryResponse`, which requires the document's `issuer` to be exactly the
 * configured one. Any failure is `ERR_OAUTH2_DISCOVERY`; the endpoints the flow needs
 * must be present and `https:` (plain `http:` only on a loopback host).
 *
 * @internal
 */
export async function discover(
  issuer: string,
  transport: Transport,
): Promise<oauth.AuthorizationServer> {
  const identifier = new URL(issuer);
  let as: oauth.AuthorizationServer;
  try {
    const response = await oauth.discoveryRequest(identifier, {
      ...transport.options(identifier),
      algorithm: 'oidc',
    });
    as = await oauth.processDiscoveryResponse(identifier, response);
  } catch (error) {
    throw oauth2Error('ERR_OAUTH2_DISCOVERY', error);
  }
  const required = [as.authorization_endpoint, as.token_endpoint, as.jwks_uri];
  const optional = as.userinfo_endpoint === undefined ? [] : [as.userinfo_endpoint];
  if (![...required, ...optional].every((url) => typeof url === 'string' && isSecureUrl(url))) {
    throw oauth2Error('ERR_OAUTH2_DISCOVERY');
  }
  const responseTypes = as.response_types_supported;
  if (Array.isArray(responseTypes) && !responseTypes.includes('code')) {
    throw oauth2Error('ERR_OAUTH2_DISCOVERY');
  }
  return Object.freeze(as);
}

/** The metadata of a plain OAuth2 provider, from its explicit endpoints. @internal */
export function staticMetadata(provider: OAuth2Provider): oauth.AuthorizationServer {
  const endpoints = provider.endpoints;
  if (endpoints === undefined) throw oauth2Error('ERR_OAUTH2_DISCOVERY');
  return Object.freeze({
    issuer: provider.issuer,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: endpoints.token,
  });
}

/**
 * The configured client authentication, else `client_secret_basic` (the default of RFC
 * 8414 metadata) unless the provider lists only `client_secret_post`.
 *
 * @internal
 */
export function chooseMethod(
  settings: OAuth2Settings,
  as: oauth.AuthorizationServer,
): ClientAuthenticationMethod {
  if (settings.clientAuthentication !== undefined) return settings.clientAuthentication;
  const supported = as.token_endpoint_auth_methods_supported;
  if (supported === undefined || supported.includes('client_secret_basic')) {
    return 'client_secret_basic';
  }
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  throw oauth2Error('ERR_OAUTH2_DISCOVERY');
}
