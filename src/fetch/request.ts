import { createSecurityRequest, type SecurityRequest } from '../core/request.js';

/**
 * The {@link SecurityRequest} view of a Fetch API `Request`. The URL is absolute,
 * so `secure` is its scheme; the client address is unknown unless given (runtimes
 * expose it differently: Bun's `server.requestIP`, Deno's `info.remoteAddr`).
 */
export function toSecurityRequest(request: Request, clientAddress?: string): SecurityRequest {
  const url = request.url;
  return createSecurityRequest({
    method: request.method,
    url,
    header: (name) => request.headers.get(name) ?? undefined,
    clientAddress,
    secure: url.startsWith('https:'),
  });
}
