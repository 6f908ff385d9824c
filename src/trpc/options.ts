import { ConfigurationError } from '../core/errors.js';
import { securityEvents, type SecurityEvents } from '../core/events.js';
import { rejectUnknownOptions } from '../lib/validate.js';

/** Options of the guards ({@link createGuards}) and of {@link securityMeta}. */
export interface GuardOptions {
  /**
   * Puts the rule that denied into the `TRPCError` message the client receives (for
   * development only: rules describe your authorization model).
   * @defaultValue `false`: the message is `Authentication is required` or `Access is denied`
   */
  readonly debug?: boolean;
  /**
   * Where `access-denied` events are published.
   * @defaultValue `securityEvents`
   */
  readonly events?: SecurityEvents;
}

/** The validated guard options. @internal */
export interface GuardSettings {
  readonly debug: boolean;
  readonly events: SecurityEvents;
}

const DEFAULTS: GuardSettings = Object.freeze({ debug: false, events: securityEvents });

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
  const allowed = ['debug', 'events', ...known];
  rejectUnknownOptions(where, options, allowed);
  const { debug = false, events = securityEvents } = options as GuardOptions;
  if (typeof debug !== 'boolean') throw new ConfigurationError('debug', 'must be a boolean');
  if (typeof (events as Partial<SecurityEvents> | null)?.publish !== 'function') {
    throw new ConfigurationError('events', 'must be a SecurityEvents publisher');
  }
  return Object.freeze({ debug, events });
}
