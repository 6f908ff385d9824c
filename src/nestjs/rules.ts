import {
  AUTHENTICATED,
  DENY_ALL,
  preAuthorizeRule,
  rolesRule,
  type Rule,
} from '../authorization/method-rule.js';
import type { Reflector } from '@nestjs/core';
import type { DefaultPolicy } from '../authorization/default-policy.js';
import { ConfigurationError } from '../core/errors.js';
import { RULE_METADATA, type RuleMetadata } from './decorators.js';

/** A handler's compiled rule: `null` lets everyone through (`@PermitAll()`). @internal */
export type HandlerRule = Rule | null;

/**
 * The rules of one application: each decorator's metadata compiled once, a handler's
 * own decorator winning over its controller's, the default policy for neither.
 *
 * @internal
 */
export class HandlerRules {
  readonly #compiled = new WeakMap<object, HandlerRule>();
  readonly #fallback: HandlerRule;

  constructor(defaultPolicy: DefaultPolicy) {
    this.#fallback = policyRule(defaultPolicy);
  }

  /** The metadata on the handler, else on its class; `undefined` for neither. */
  static metadataOf(
    reflector: Reflector,
    handler: object,
    controller: object,
  ): RuleMetadata | undefined {
    type Target = (...args: never[]) => unknown;
    return (
      reflector.get<RuleMetadata | undefined>(RULE_METADATA, handler as Target) ??
      reflector.get<RuleMetadata | undefined>(RULE_METADATA, controller as Target)
    );
  }

  /**
   * The rule of a handler: compiled the first time its metadata is seen (at start-up,
   * by the module's check of every controller).
   *
   * @throws ConfigurationError or ExpressionSyntaxError for a bad rule, naming `where`
   */
  ruleOf(metadata: RuleMetadata | undefined, where: () => string): HandlerRule {
    if (metadata === undefined) return this.#fallback;
    const known = this.#compiled.get(metadata);
    if (known !== undefined) return known;
    let compiled: HandlerRule;
    try {
      compiled = compile(metadata);
    } catch (error) {
      if (error instanceof Error) error.message = `${where()}: ${error.message}`;
      throw error;
    }
    this.#compiled.set(metadata, compiled);
    return compiled;
  }
}

function compile(metadata: RuleMetadata): HandlerRule {
  switch (metadata.kind) {
    case 'permitAll':
      return null;
    case 'denyAll':
      return DENY_ALL;
    case 'authenticated':
      return AUTHENTICATED;
    case 'roles':
      if (metadata.roles.length === 0) {
        throw new ConfigurationError(`@${metadata.decorator}`, 'must name at least one role');
      }
      return rolesRule(metadata.roles);
    case 'preAuthorize':
      return preAuthorizeRule(metadata.rule);
    default:
      throw new ConfigurationError('portcullis:rule', 'is not metadata of a portcullis decorator');
  }
}

function policyRule(policy: DefaultPolicy): HandlerRule {
  if (policy === 'permitAll') return null;
  return policy === 'denyAll' ? DENY_ALL : AUTHENTICATED;
}
