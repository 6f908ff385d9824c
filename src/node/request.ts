import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { createSecurityRequest, type SecurityRequest } from '../core/request.js';

/**
 * The {@link SecurityRequest} view of a node `http` request. Express and Connect
 * rewrite `req.url` below a mount point, so `originalUrl` is preferred: rules
 * always see the full path the client asked for.
 */
export function toSecurityRequest(req: IncomingMessage): SecurityRequest {
  const headers = req.headers;
  return createSecurityRequest({
    method: req.method ?? 'GET',
    url: (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/',
    header: (name) => {
      const value = headers[name];
      return Array.isArray(value) ? value.join(name === 'cookie' ? '; ' : ', ') : value;
    },
    clientAddress: req.socket.remoteAddress,
    secure: (req.socket as Partial<TLSSocket>).encrypted === true,
  });
}
