import type { IncomingMessage, ServerResponse } from 'node:http';
import { deadlineExceeded } from '../core/deadline.js';
import { retryLaterStatus, UnavailableError } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import { withDeadline } from '../lib/deadline.js';
import { fetchRequestView, nodeRequestView } from '../http/request-views.js';
import { readForm } from './form.js';

/** A form handler for both adapter styles. */
export interface FormHandler {
  /** For node `http`, Express, Connect: answers the request itself. */
  readonly node: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /**
   * For the Fetch API (Hono, Next.js route handlers, Bun, Deno). `clientAddress` is
   * the client's socket address where the runtime tells it (e.g. Hono's
   * `getConnInfo(c).remote.address`): without it, a login throttle counts attempts
   * by username only.
   */
  readonly fetch: (request: Request, clientAddress?: string) => Promise<Response>;
}

/** What a form handler answers, whichever adapter style sends it. @internal */
export interface Outcome {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly setCookie?: string;
  readonly body: string;
}

const TEXT = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };

/** A plain-text answer. @internal */
export function plain(status: number, body: string): Outcome {
  return { status, headers: TEXT, body };
}

/** A 303 redirect, never cached. @internal */
export function redirect(location: string, setCookie?: string): Outcome {
  return {
    status: 303,
    headers: { location, 'cache-control': 'no-store' },
    ...(setCookie === undefined ? {} : { setCookie }),
    body: '',
  };
}

/**
 * 503 with `Retry-After` (a dependency passed its deadline or is down), or 429 with
 * `Retry-After` when a throttle refused (a `TooManyRequestsError`). @internal
 */
export function retryLaterOutcome(error: UnavailableError): Outcome {
  const status = retryLaterStatus(error);
  return {
    status,
    headers: { ...TEXT, 'retry-after': String(error.retryAfter) },
    body: status === 429 ? 'Too Many Requests' : 'Service Unavailable',
  };
}

/**
 * The node and Fetch handlers of a form route: `POST` only, the body read up to
 * `max` bytes, then `handle` under the deadline (past it, or on an
 * `UnavailableError`, 503 with `Retry-After`). @internal
 */
export function makeHandler(
  max: number,
  events: SecurityEvents,
  timeoutMs: number,
  operation: string,
  handle: (request: SecurityRequest, form: URLSearchParams) => Promise<Outcome>,
): FormHandler {
  const run = async (
    security: SecurityRequest,
    source: IncomingMessage | Request,
  ): Promise<Outcome> => {
    if (security.method !== 'POST')
      return { ...plain(405, 'Method Not Allowed'), headers: { ...TEXT, allow: 'POST' } };
    const read = await readForm(source, max);
    if ('status' in read)
      return plain(
        read.status,
        read.status === 413
          ? 'Payload Too Large'
          : read.status === 415
            ? 'Unsupported Media Type'
            : 'Bad Request',
      );
    try {
      return await withDeadline(handle(security, read.form), timeoutMs, () =>
        deadlineExceeded(operation, timeoutMs, events, security),
      );
    } catch (error) {
      if (error instanceof UnavailableError) return retryLaterOutcome(error);
      throw error;
    }
  };
  return Object.freeze({
    node: async (req: IncomingMessage, res: ServerResponse) => {
      let outcome: Outcome;
      try {
        outcome = await run(nodeRequestView(req), req);
      } catch {
        // A client that went away mid-body, or a failing store: never an unhandled
        // rejection (which would end the process), never details.
        if (res.headersSent || req.socket.destroyed) res.destroy();
        else res.writeHead(500, TEXT).end('Internal Server Error');
        return;
      }
      if (outcome.setCookie !== undefined) res.appendHeader('set-cookie', outcome.setCookie);
      if (outcome.status === 413) res.setHeader('connection', 'close');
      res.writeHead(outcome.status, outcome.headers);
      res.end(outcome.body);
    },
    fetch: async (request: Request, clientAddress?: string) => {
      // A runtime handing its own second argument (Bun's server, a Worker's env) gives no address.
      const address = typeof clientAddress === 'string' ? clientAddress : undefined;
      const outcome = await run(fetchRequestView(request, address), request);
      const headers = new Headers(outcome.headers);
      if (outcome.setCookie !== undefined) headers.append('set-cookie', outcome.setCookie);
      return new Response(outcome.body === '' ? null : outcome.body, {
        status: outcome.status,
        headers,
      });
    },
  });
}
