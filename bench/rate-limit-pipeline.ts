/**
 * The rate-limit benchmark's URL-rule rows (bench/rate-limit.ts): the whole
 * `SecurityTransform.handle` of an authenticated request in this process, without a
 * limit, with `requestMatcher().rateLimit('/api/**', limit)`, and without it but
 * followed by rate-limiter-flexible's `consume(username)` (the middleware users write
 * after authentication), on the store under test.
 */
import {
  Access,
  AuthenticatedUser,
  AuthorizationManager,
  SecurityTransform,
  User,
  createSecurityRequest,
  rateLimit,
  type Authenticator,
  type SecurityOutcome,
  type SecurityRequest,
  type ThrottleStore,
} from 'portcullis';
import { KEYS, NEVER, type Flexible, type Group, type Mode } from './rate-limit-measure.js';

/** A transform authenticating `x-user` (one of {@link KEYS} users), with the limit as a URL rule when given. */
function transformOf(limit?: ReturnType<typeof rateLimit>): SecurityTransform {
  const users = new Map<string, AuthenticatedUser>();
  for (let n = 0; n < KEYS; n++) {
    const name = `bench-user-${String(n)}`;
    users.set(name, AuthenticatedUser.from(new User(name, '', ['USER'])));
  }
  const authenticator: Authenticator = {
    getUser: () => null,
    authenticate: (request) => users.get(request.header('x-user') ?? '') ?? null,
  };
  return new SecurityTransform({ authenticator }).configAuthorizer(() => {
    const rules = AuthorizationManager.requestMatcher();
    return (limit === undefined ? rules : rules.rateLimit('/api/**', limit)).anyRequest(
      Access.authenticated(),
    );
  });
}

/** A new request each time (an authenticator may keep what it read on the request). */
const requestOf = (i: number): SecurityRequest => {
  const name = `bench-user-${String(i % KEYS)}`;
  return createSecurityRequest({
    method: 'GET',
    url: '/api/search',
    header: (header) => (header === 'x-user' ? name : undefined),
    clientAddress: '127.0.0.1',
  });
};

/** The outcome's user, or an error naming the status it answered instead. */
function proceeded(outcome: SecurityOutcome): AuthenticatedUser {
  if (!outcome.proceed || outcome.user === null) {
    throw new Error(
      `the pipeline answered ${outcome.proceed ? 'anonymous' : outcome.response.status}`,
    );
  }
  return outcome.user;
}

/**
 * Checks that the URL rule refuses past its limit (429), then answers the group:
 * the pipeline alone (its floor), with the rule, and followed by rate-limiter-flexible.
 */
export async function pipelineGroup(
  title: string,
  store: ThrottleStore,
  flexible: Flexible,
  options: { tag: string; mode: Mode; iterations: number; budgetMs: number },
): Promise<Group> {
  const { tag, mode, iterations, budgetMs } = options;
  const strict = transformOf(rateLimit({ name: `bench-rule-${tag}`, window: '1m', max: 1, store }));
  proceeded(await strict.handle(requestOf(0)));
  const refused = await strict.handle(requestOf(0));
  if (refused.proceed || refused.response.status !== 429) {
    throw new Error(`${title}: the URL rule let a request past its limit through`);
  }
  const plain = transformOf();
  const limited = transformOf(
    rateLimit({ name: `bench-pipeline-${tag}`, window: '1m', max: NEVER, store }),
  );
  const flexibleUser = flexible(`bench-pipeline-${tag}`, NEVER, 60);
  return {
    title,
    iterations,
    budgetMs,
    variants: [
      {
        label: 'floor: the pipeline without a limit',
        library: 'floor',
        mode,
        prepare: () => async (i) => proceeded(await plain.handle(requestOf(i))),
      },
      {
        label: "portcullis URL rule `rateLimit('/api/**', limit)`, by 'user'",
        library: 'portcullis',
        mode,
        pair: 'pipeline',
        overFloor: true,
        prepare: () => async (i) => proceeded(await limited.handle(requestOf(i))),
      },
      {
        label: 'the pipeline, then `consume(username)`',
        library: 'rate-limiter-flexible',
        mode,
        pair: 'pipeline',
        prepare: () => async (i) => {
          const user = proceeded(await plain.handle(requestOf(i)));
          await flexibleUser.consume(user.username);
        },
      },
    ],
  };
}
