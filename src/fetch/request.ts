import type { SecurityRequest } from '../core/request.js';
import { fetchRequestView } from '../http/request-views.js';

/**
 * The {@link SecurityRequest} view of a Fetch API `Request`. The URL is absolute,
 * so `secure` is its scheme; the client address is unknown unless given (runtimes
 * expose it differently: Bun's `server.requestIP`, Deno's `info.remoteAddr`).
 */
export function toSecurityRequest(request: Request, clientAddress?: string): SecurityRequest {
  return fetchRequestView(request, clientAddress);
}
