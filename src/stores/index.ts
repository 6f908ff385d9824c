export type {
  MaybePromise,
  RevocationStore,
  SpentIdStore,
  UserChangeListener,
  UserChangeNotifier,
} from './types.js';
export { MemoryStoreFullError } from './errors.js';
export {
  MemoryRevocationStore,
  type MemoryRevocationStoreOptions,
} from './memory-revocation-store.js';
export { MemorySpentIdStore, type MemorySpentIdStoreOptions } from './memory-spent-id-store.js';
export { MemoryUserChangeNotifier } from './memory-user-changes.js';
