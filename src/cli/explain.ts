import { parseArgs } from 'node:util';
import { Firewall } from '../authorization/firewall.js';
import { AuthenticatedUser } from '../core/authenticated-user.js';
import { Outcome, type AuthenticationOutcome } from '../core/outcome.js';
import { createSecurityRequest, type SecurityRequest } from '../core/request.js';
import type { AuthorizationExplanation, Authorizer } from '../core/security.js';
import { accountRefusal, User } from '../core/user.js';
import type { CliOutput } from './check-schema.js';
import {
  CliError,
  describe,
  findConfigUser,
  loadConfig,
  type CliConfig,
  type CliUser,
} from './config.js';

const USAGE = `Usage: portcullis explain <METHOD> <PATH> --config <module> [--as <username>] [options]

Explains what the server's rules decide for one request: the firewall's verdict, the
URL rule that matches, its requirement, the decision (granted, or the status of the
refusal: 401, 403, a login redirect) and the term of the requirement that failed.
The request is explained, not sent; no rate limit is counted.

  --config <module>   the configuration module (TypeScript through tsx when it is
                      installed): default export { authorizer, users?, firewall? }
                      or a function returning it, built from the server's own code
  --as <username>     the user, looked up in the configuration's users; anonymous
                      without it
  --header <h: v>     a request header, e.g. "accept: text/html" (repeatable)
  --json              print the explanation as JSON
  -h, --help          show this help

Exit status: 0 when the request is granted, 1 when it is refused, 2 for a usage or
configuration error.`;

/** What `portcullis explain` found, as `--json` prints it. @internal */
export interface RequestExplanation {
  readonly method: string;
  readonly path: string;
  /** The user the request is explained for; `null` for anonymous. */
  readonly user: {
    readonly username: string;
    readonly roles: readonly string[];
    readonly authorities: readonly string[];
  } | null;
  /** Why that user cannot log in (a locked or disabled account), when so. */
  readonly loginRefused: string | null;
  /** The firewall's reason for rejecting the request (400), when it does. */
  readonly firewall: string | null;
  /** `granted`, or why it is refused; `rejected` by the firewall. */
  readonly outcome: AuthorizationExplanation['outcome'] | 'rejected';
  /** The answer instead of the application's: `null` when granted. */
  readonly status: number | null;
  /** Where a login redirect goes. */
  readonly location: string | null;
  readonly rule: string | null;
  readonly requirement: string | null;
  /** The term that decided: for a refusal, the failing term. */
  readonly term: string | null;
}

/** `portcullis explain`. Returns the exit status. @internal */
export async function main(argv: readonly string[], io: CliOutput): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        as: { type: 'string' },
        header: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.err(`${describe(error)}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.out(USAGE);
    return 0;
  }
  const [method, path, ...extra] = positionals;
  if (
    method === undefined ||
    path === undefined ||
    extra.length > 0 ||
    values.config === undefined
  ) {
    io.err(USAGE);
    return 2;
  }
  try {
    const config = await loadConfig(values.config);
    const explanation = await explainRequest(config, {
      method,
      path,
      as: values.as,
      headers: values.header ?? [],
    });
    io.out(values.json === true ? JSON.stringify(explanation, null, 2) : format(explanation));
    return explanation.outcome === 'granted' ? 0 : 1;
  } catch (error) {
    io.err(describe(error));
    return 2;
  }
}

/** What {@link explainRequest} explains. @internal */
export interface ExplainInput {
  readonly method: string;
  readonly path: string;
  /** The username; anonymous when `undefined`. */
  readonly as?: string | undefined;
  /** `name: value` lines. */
  readonly headers?: readonly string[];
}

/**
 * Explains one request against a configuration, as the transform decides it: the
 * firewall first, then the authorizer's rule for the user, then the authorizer's
 * answer to a denial (its challenges, its login redirect).
 *
 * @internal
 */
export async function explainRequest(
  config: CliConfig,
  input: ExplainInput,
): Promise<RequestExplanation> {
  const authorizer = requireAuthorizer(config.authorizer);
  const method = input.method.toUpperCase();
  if (!/^[A-Z]+$/u.test(method)) throw new CliError(`"${input.method}" is not an HTTP method`);
  if (!input.path.startsWith('/')) {
    throw new CliError(`"${input.path}" is not a path: it must start with "/"`);
  }
  const request = requestOf(method, input.path, input.headers ?? []);
  const found = input.as === undefined ? null : await findConfigUser(config.users, input.as);
  const refusal = found instanceof User ? accountRefusal(found) : undefined;
  const user =
    found === null || refusal !== undefined
      ? null
      : AuthenticatedUser.from(
          found instanceof User
            ? found
            : new User(found.username, '', found.roles ?? [], found.authorities ?? []),
          { authenticationMethod: 'explain' },
        );
  const described = found === null ? null : describeUser(found);
  const base = {
    method,
    path: input.path,
    user: described,
    loginRefused: refusal ?? null,
  };
  const firewall = firewallOf(config.firewall);
  const rejected = firewall?.check(request) ?? null;
  if (firewall !== undefined && rejected !== null) {
    const response = firewall.reject(rejected, request);
    return {
      ...base,
      firewall: rejected,
      outcome: 'rejected',
      status: response.status,
      location: null,
      rule: null,
      requirement: null,
      term: null,
    };
  }
  const authentication: AuthenticationOutcome =
    user !== null
      ? Outcome.authenticated(user)
      : refusal !== undefined
        ? Outcome.failed(refusal, input.as === undefined ? {} : { username: input.as })
        : Outcome.anonymous();
  const why = await (authorizer.explain as NonNullable<Authorizer['explain']>)(user, request);
  let status: number | null = null;
  let location: string | null = null;
  if (why.outcome !== 'granted') {
    const denial = { granted: false, reason: why.outcome, rule: why.rule } as const;
    const response = authorizer.onDenied?.(denial, request, authentication);
    status =
      response?.status ??
      (why.outcome === 'unauthenticated' && authentication.kind !== 'refused' ? 401 : 403);
    location = response?.headers['location'] ?? null;
  }
  return {
    ...base,
    firewall: null,
    outcome: why.outcome,
    status,
    location,
    rule: why.rule,
    requirement: why.requirement,
    term: why.term,
  };
}

function requireAuthorizer(authorizer: unknown): Authorizer {
  const candidate = authorizer as Partial<Authorizer> | null | undefined;
  if (typeof candidate?.authorize !== 'function') {
    throw new CliError(
      'The configuration has no authorizer (its "authorizer" must be an Authorizer)',
    );
  }
  if (typeof candidate.explain !== 'function') {
    throw new CliError(
      "The configuration's authorizer cannot explain its decisions (it has no explain(); AuthorizationManager.requestMatcher() has one)",
    );
  }
  return candidate as Authorizer;
}

function requestOf(method: string, path: string, headerLines: readonly string[]): SecurityRequest {
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : '';
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/u.test(name)) {
      throw new CliError(`--header "${line}": expected "name: value"`);
    }
    const value = line.slice(colon + 1).trim();
    const previous = headers.get(name);
    headers.set(name, previous === undefined ? value : `${previous}, ${value}`);
  }
  return createSecurityRequest({
    method,
    url: path,
    header: (name) => headers.get(name),
    clientAddress: '127.0.0.1',
  });
}

function describeUser(user: User | CliUser): NonNullable<RequestExplanation['user']> {
  return {
    username: user.username,
    roles: [...(user.roles ?? [])],
    authorities: [...(user.authorities ?? [])],
  };
}

function firewallOf(option: CliConfig['firewall']): Firewall | undefined {
  if (option === false) return undefined;
  if (option instanceof Firewall) return option;
  return new Firewall(option);
}

function format(e: RequestExplanation): string {
  const who = e.user === null ? 'anonymous' : e.user.username;
  const lines = [`${e.method} ${e.path} as ${who}`];
  if (e.user !== null) {
    lines.push(
      `  user:        roles ${list(e.user.roles)}; authorities ${list(e.user.authorities)}`,
    );
  }
  if (e.loginRefused !== null) {
    lines.push(`  login:       refused (${e.loginRefused}): the request counts as a failed login`);
  }
  if (e.firewall !== null) {
    lines.push(`  firewall:    rejected (${e.firewall}): no rule is consulted`);
    lines.push(`  decision:    ${e.status ?? 400} by the firewall`);
    return lines.join('\n');
  }
  lines.push(`  rule:        ${e.rule ?? ''}`);
  if (e.outcome === 'granted') {
    lines.push('  decision:    granted: the request reaches the application');
    lines.push(`  granted by:  ${e.term ?? ''}`);
  } else {
    const redirect = e.location === null ? '' : ` to ${e.location}`;
    lines.push(`  decision:    ${e.status ?? ''} ${e.outcome}${redirect}`);
    lines.push(`  failing:     ${e.term ?? ''}`);
  }
  return lines.join('\n');
}

function list(names: readonly string[]): string {
  return names.length === 0 ? '(none)' : names.join(', ');
}
