export type {
  MaybePromise,
  RevocationStore,
  SpentIdStore,
  UserChangeListener,
  UserChangeNotifier,
} from './types.js';
