export type {
  MaybePromise,
  RevocationStore,
  SpentIdStore,
  ThrottleAdmission,
  ThrottleRule,
  ThrottleState,
  ThrottleStore,
  UserChangeListener,
  UserChangeNotifier,
  WindowCount,
} from './types.js';
export { MemoryStoreFullError } from './errors.js';
export {
  MemoryRevocationStore,
  type MemoryRevocationStoreOptions,
} from './memory-revocation-store.js';
export { MemorySpentIdStore, type MemorySpentIdStoreOptions } from './memory-spent-id-store.js';
export { MemoryUserChangeNotifier } from './memory-user-changes.js';
export { MemoryThrottleStore, type MemoryThrottleStoreOptions } from './memory-throttle-store.js';
