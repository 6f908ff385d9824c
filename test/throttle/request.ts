import { createSecurityRequest, type SecurityRequest } from '../../src/index.js';

/** A request from `clientAddress` with these headers (names in lower case). */
export function requestFrom(
  clientAddress: string | undefined,
  headers: Readonly<Record<string, string>> = {},
  url = '/login',
): SecurityRequest {
  return createSecurityRequest({
    method: 'POST',
    url,
    header: (name) => headers[name],
    clientAddress,
  });
}
