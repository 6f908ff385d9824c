/**
 * The testing kit (`portcullis/testing`), as `spring-security-test` is for Spring:
 * an authenticated user in one call (`mockUser`), code run as that user (`runAs`), a
 * tRPC caller (`createTrpcCallerAs`) and a GraphQL operation (`executeAs`) as that user
 * through the production context factories, a Fetch or node handler as that user
 * (`fetchHandlerAs`, `nodeHandlerAs`), test tokens and session cookies made by
 * the real `JwtAuthenticator` and `SessionAuthenticator` (`testJwt`,
 * `sessionCookieFor`, `sessionFor`), and a clock moved by hand (`manualClock`).
 *
 * For tests only: every helper but the clock refuses to run with
 * `NODE_ENV=production`. Importing it loads no peer: each helper loads the one it
 * needs (`@trpc/server`, `graphql`, `jose`, `iron-session`) when called.
 *
 * @module portcullis/testing
 */
export { manualClock, type ManualClock } from './clock.js';
export { executeAs, type ExecuteAsArgs } from './graphql.js';
export { fetchHandlerAs, nodeHandlerAs } from './handlers.js';
export { testJwt, type TestJwt, type TestTokenOptions } from './jwt.js';
export { mockUser, runAs, type MockUserOptions } from './mock-user.js';
export { sessionCookieFor, sessionFor, type TestSession } from './session.js';
export {
  createTrpcCallerAs,
  type TrpcCaller,
  type TrpcCallerOptions,
  type TrpcExtraContext,
} from './trpc.js';
