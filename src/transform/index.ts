export {
  SecurityTransform,
  type SecurityOutcome,
  type SecurityTransformOptions,
} from './security-transform.js';
