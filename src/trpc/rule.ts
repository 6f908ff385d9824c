/**
 * The guards' rules: shared with the other method-security adapters, in
 * `authorization/method-rule.ts`.
 *
 * @internal
 */
export {
  AUTHENTICATED,
  DENY_ALL,
  preAuthorizeRule,
  rolesRule,
  type Rule,
} from '../authorization/method-rule.js';
