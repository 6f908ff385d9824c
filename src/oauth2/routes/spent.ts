import { ConfigurationError } from '../../core/errors.js';
import { requireInteger } from '../../core/validate.js';
import { MemorySpentIdStore } from '../../stores/memory-spent-id-store.js';
import type { SpentIdStore } from '../../stores/types.js';
import type { OAuth2LoginOptions } from './options.js';

/** The given spent-transaction store, or the default one. @internal */
export function spentStore(
  options: Pick<OAuth2LoginOptions, 'spentTransactions' | 'maxSpentTransactions'>,
  clock: () => number,
): SpentIdStore {
  const given = options.spentTransactions;
  if (given === undefined) {
    const maxEntries = requireInteger(
      'maxSpentTransactions',
      options.maxSpentTransactions ?? 100_000,
      100,
      10_000_000,
    );
    return new MemorySpentIdStore({ maxEntries, clock });
  }
  if (options.maxSpentTransactions !== undefined) {
    throw new ConfigurationError(
      'maxSpentTransactions',
      'sizes the default store only: size the spentTransactions store instead',
    );
  }
  if (typeof (given as Partial<SpentIdStore> | null)?.spend !== 'function') {
    throw new ConfigurationError('spentTransactions', 'must be a SpentIdStore (spend)');
  }
  return given;
}
