export {
  SecurityTransform,
  type SecurityOutcome,
  type SecurityTransformOptions,
} from './security-transform.js';
export { type SecurityDeadlineOptions } from './deadlines.js';
export { type CorsSetting } from './cors.js';
