import type { IncomingMessage } from 'node:http';
import type { SecurityRequest } from '../core/request.js';
import { nodeRequestView } from '../http/request-views.js';

/**
 * The {@link SecurityRequest} view of a node `http` request. Express and Connect
 * rewrite `req.url` below a mount point, so `originalUrl` is preferred: rules
 * always see the full path the client asked for.
 */
export function toSecurityRequest(req: IncomingMessage): SecurityRequest {
  return nodeRequestView(req);
}
