import { ConfigurationError } from '../core/errors.js';
import { requireInteger, requireOptionsObject } from '../core/validate.js';

/** What the in-memory stores read of their options. @internal */
export interface MemoryStoreSettings {
  /** How many entries the store keeps at most. */
  readonly maxEntries: number;
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
}

/**
 * Reads the options every in-memory store shares: `maxEntries` (1 to 100,000,000,
 * default 100,000) and, where the store keeps time itself, `clock` (default
 * `Date.now`); any other key is refused with a did-you-mean.
 *
 * @internal
 */
export function memoryStoreOptions(
  owner: string,
  options: unknown,
  { clock: withClock }: { readonly clock: boolean },
): MemoryStoreSettings {
  const o = requireOptionsObject(
    'options',
    owner,
    options,
    withClock ? ['maxEntries', 'clock'] : ['maxEntries'],
  );
  const maxEntries = requireInteger('maxEntries', o.maxEntries ?? 100_000, 1, 100_000_000);
  const clock = o.clock ?? Date.now;
  if (typeof clock !== 'function') throw new ConfigurationError('clock', 'must be a function');
  return { maxEntries, clock: clock as () => number };
}
