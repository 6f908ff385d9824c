import { ConfigurationError, DeadlineExceededError } from './errors.js';
import { summarize, type SecurityEvents } from './events.js';
import type { SecurityRequest } from './request.js';
import { MAX_DEADLINE_MS } from '../lib/deadline.js';

/** What an event summarizes of a request. */
type RequestOf = Pick<SecurityRequest, 'method' | 'rawPath' | 'clientAddress'>;

/**
 * The default deadlines, in milliseconds. A component's own deadline is shorter than
 * the pipeline's, so the component's event names what hung.
 */
export const DEFAULT_DEADLINES = Object.freeze({
  /** A whole authentication in `SecurityTransform` and the tRPC / GraphQL context factories. */
  authenticationMs: 10_000,
  /** A whole authorization (asynchronous rules) in `SecurityTransform`. */
  authorizationMs: 10_000,
  /** One password check (or encode) by the password encoder. */
  passwordEncoderMs: 5_000,
  /** One call of an asynchronous custom expression function. */
  expressionFunctionMs: 5_000,
  /** One call of a user loader (`loadUser`, an OAuth2 user mapper). */
  loadUserMs: 5_000,
});

/**
 * Makes the error of a passed deadline and publishes its `deadline-exceeded` event
 * (never throws: a faulty publisher is ignored). Used as the `onTimeout` of the
 * deadline helper.
 *
 * @internal
 */
export function deadlineExceeded(
  operation: string,
  timeoutMs: number,
  events: Pick<SecurityEvents, 'publish'> | undefined,
  request?: RequestOf,
): DeadlineExceededError {
  const error = new DeadlineExceededError(operation, timeoutMs);
  publishDeadlineExceeded(error, events, request);
  return error;
}

/**
 * Publishes the `deadline-exceeded` event of an error (its operation and deadline,
 * the request's summary); never throws.
 *
 * @internal
 */
export function publishDeadlineExceeded(
  error: DeadlineExceededError,
  events: Pick<SecurityEvents, 'publish'> | undefined,
  request?: RequestOf,
): void {
  try {
    if (events !== undefined && (events as Partial<SecurityEvents>).hasListeners !== false) {
      events.publish({
        type: 'deadline-exceeded',
        operation: error.operation,
        timeoutMs: error.timeoutMs,
        request: request === undefined ? undefined : summarize(request),
      });
    }
  } catch {
    // A faulty custom publisher must not turn a 503 into a 500.
  }
}

/**
 * Validates a deadline option: an integer number of milliseconds from 1 to 600,000.
 *
 * @throws ConfigurationError naming the option
 * @internal
 */
export function requireDeadline(option: string, value: unknown): number {
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 1 ||
    value > MAX_DEADLINE_MS
  ) {
    throw new ConfigurationError(
      option,
      `must be an integer number of milliseconds from 1 to ${MAX_DEADLINE_MS}`,
    );
  }
  return value;
}
