import {
  securityEvents,
  summarize,
  type AuthenticationFailureReason,
  type SecurityEvent,
  type SecurityEvents,
} from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';

/**
 * Publishes an authentication event, building it only when someone listens. A
 * publisher that throws never breaks authentication. No event carries a password.
 *
 * @internal
 */
export function publishAuthentication(
  events: SecurityEvents | undefined,
  outcome:
    | { readonly ok: true; readonly username: string }
    | {
        readonly ok: false;
        readonly username: string | undefined;
        readonly reason: AuthenticationFailureReason;
      },
  authenticationMethod: string,
  request: SecurityRequest | undefined,
): void {
  const publisher = events ?? securityEvents;
  try {
    if (!publisher.hasListeners) return;
    const summary = request === undefined ? undefined : summarize(request);
    const event: SecurityEvent = outcome.ok
      ? {
          type: 'authentication-success',
          username: outcome.username,
          authenticationMethod,
          request: summary,
        }
      : {
          type: 'authentication-failure',
          username: outcome.username,
          authenticationMethod,
          reason: outcome.reason,
          request: summary,
        };
    publisher.publish(event);
  } catch {
    // A faulty custom publisher must not turn a login into a server error.
  }
}
