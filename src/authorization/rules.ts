import { GRANTED, type AuthorizationDecision } from '../core/security.js';
import { ConfigurationError } from '../core/errors.js';
import { PathVariables } from '../expression/path-variables.js';
import { Access, type AccessCheck, type AccessOutcome } from './access.js';
import { checkOptionNames, requireMethods } from './options.js';
import { captureVariables } from './path-pattern.js';
import type { CompiledPattern } from './pattern.js';
import type { ShadowCandidate } from './rule-checks.js';

/** A denial decision. @internal */
export type Denial = Extract<AuthorizationDecision, { granted: false }>;

/** A URL rule, compiled. @internal */
export interface Rule extends ShadowCandidate {
  readonly check: AccessCheck;
  /** The requirement, for explanations (debug mode, `npx portcullis explain`). */
  readonly access: Access;
  /** The variables of the path for `path.<name>` references; `undefined` when none are read. */
  readonly capture: ((path: string) => PathVariables | undefined) | undefined;
  readonly unauthenticated: Denial;
  readonly forbidden: Denial;
}

/**
 * Builds a rule; refuses an `access` that reads `path.<name>` variables the
 * pattern does not capture (a regex rule captures none).
 *
 * @internal
 */
export function makeRule(
  label: string,
  access: Access,
  pattern: CompiledPattern,
  methods: ReadonlySet<string> | undefined,
): Rule {
  const description = `${label} → ${access.toString()}`;
  return {
    pattern,
    methods,
    description,
    check: access.check,
    access,
    capture: pathCapture(label, access, pattern),
    unauthenticated: Object.freeze({
      granted: false,
      reason: 'unauthenticated',
      rule: description,
    }),
    forbidden: Object.freeze({ granted: false, reason: 'forbidden', rule: description }),
  };
}

function pathCapture(label: string, access: Access, pattern: CompiledPattern): Rule['capture'] {
  const wanted = access.pathVariables;
  if (wanted.length === 0) return undefined;
  const parsed = pattern.path;
  const missing = wanted.find((name) => !parsed?.variables.includes(name));
  if (parsed === undefined || missing !== undefined) {
    const captured = parsed?.variables.length ? parsed.variables.join(', ') : 'none';
    throw new ConfigurationError(
      'access',
      `${label}: the expression reads path.${missing ?? wanted[0] ?? ''}, which the ` +
        `${parsed === undefined ? 'rule' : 'pattern'} does not capture (captured: ${captured}; ` +
        'a path pattern such as "/users/{id}" captures path.id)',
    );
  }
  const { regex } = pattern;
  return (path) => {
    const match = regex.exec(path);
    const values = match && captureVariables(parsed, match);
    return values ? new PathVariables(Object.freeze(values)) : undefined;
  };
}

/** The decision of a rule's outcome. @internal */
export function decide(rule: Rule, outcome: AccessOutcome): AuthorizationDecision {
  if (outcome === 'granted') return GRANTED;
  return outcome === 'forbidden' ? rule.forbidden : rule.unauthenticated;
}

/** Refuses anything but an {@link Access}. @internal */
export function requireAccess(access: unknown): Access {
  if (!(access instanceof Access)) {
    throw new ConfigurationError('access', 'must be an Access, e.g. new Access().roles([...])');
  }
  return access;
}

/**
 * The methods of {@link MatcherOptions}: upper case, `HEAD` added to `GET`.
 *
 * @internal
 */
export function matcherMethods(
  owner: string,
  options: { readonly methods?: string | readonly string[] } | string | undefined,
): ReadonlySet<string> | undefined {
  const raw =
    typeof options === 'string' ? options : checkOptionNames(owner, options, ['methods']).methods;
  if (raw === undefined) return undefined;
  const methods = new Set(requireMethods('methods', raw));
  if (methods.has('GET')) methods.add('HEAD');
  return methods;
}
