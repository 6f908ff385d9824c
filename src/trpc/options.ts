import { ConfigurationError } from '../core/errors.js';
import { securityEvents, type SecurityEvents } from '../core/events.js';
import { rejectUnknownOptions } from '../core/validate.js';
import { debugOption } from '../core/debug.js';

/** Options of the guards ({@link createGuards}) and of {@link securityMeta}. */
export interface GuardOptions {
  /**
   * Debug mode: puts the rule that denied into the `TRPCError` message the client
   * receives, and the requirement and its failing term into the `access-denied` event
   * (`expression`, `failingTerm`; the event then comes just after the denial). For
   * development only: rules describe your authorization model. Refused with
   * `NODE_ENV=production` (a `ConfigurationError`).
   * @defaultValue `false`: the message is `Authentication is required` or `Access is denied`
   */
  readonly debug?: boolean;
  /**
   * Where `access-denied` events are published.
   * @defaultValue `securityEvents`
   */
  readonly events?: SecurityEvents;
  /**
   * Fill `SecurityContext` with the user for the rest of the call (and bind a
   * subscription's stream to it). `ctx.user` is there either way; off,
   * `SecurityContext.getUser()` is `null` in the procedures. On by default on every
   * runtime, because only then is `SecurityContext` right there. Its cost depends on
   * what `AsyncLocalStorage` runs on: on Node 24 (AsyncContextFrame) only the call's
   * own `run`, under a microsecond; on Node 20 and 22 (promise hooks, unless Node 22
   * runs with `--experimental-async-context-frame`) the hooks, once on, slow every
   * promise of the process: 10 to 25 µs per call through tRPC's Fetch adapter in
   * process (`npm run bench -- trpc`). Switch it off there when procedures read
   * `ctx.user` only.
   * @defaultValue `true`
   */
  readonly securityContext?: boolean;
}

/** The validated guard options. @internal */
export interface GuardSettings {
  readonly debug: boolean;
  readonly events: SecurityEvents;
  readonly securityContext: boolean;
}

/** The settings without options. @internal */
export const DEFAULTS: GuardSettings = Object.freeze({
  debug: false,
  events: securityEvents,
  securityContext: true,
});

/**
 * Validates options (unknown keys are refused with a "did you mean") and merges the
 * defaults into a new object.
 *
 * @internal
 */
export function resolveGuardOptions(
  options: object | undefined,
  known: readonly string[],
  where: string,
): GuardSettings {
  if (options === undefined) return DEFAULTS;
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new ConfigurationError('options', 'must be an object');
  }
  const allowed = ['debug', 'events', 'securityContext', ...known];
  rejectUnknownOptions(where, options, allowed);
  const {
    debug = false,
    events = securityEvents,
    securityContext = true,
  } = options as GuardOptions;
  debugOption(debug);
  if (typeof securityContext !== 'boolean') {
    throw new ConfigurationError('securityContext', 'must be a boolean');
  }
  if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  return Object.freeze({ debug, events, securityContext });
}
