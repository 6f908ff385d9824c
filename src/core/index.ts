export { AuthenticatedUser, type AuthenticatedUserOptions } from './authenticated-user.js';
export { SecurityContext } from './context.js';
export {
  AccessDeniedError,
  AuthenticationRequiredError,
  ConfigurationError,
  DeadlineExceededError,
  PortcullisError,
  RequestRejectedError,
  StoreUnavailableError,
  TooManyRequestsError,
  UnavailableError,
  isPortcullisError,
  type RequestRejectedErrorCode,
  type UnavailableErrorCode,
} from './errors.js';
export {
  Outcome,
  userOf,
  type AttemptCredentialsOptions,
  type AuthenticationOutcome,
  type CredentialsAuthenticator,
  type CredentialChallenge,
  type CredentialFailureOutcome,
  type RefusalOutcome,
} from './outcome.js';
export { DEFAULT_DEADLINES } from './deadline.js';
export {
  SecurityEvents,
  securityEvents,
  type AccessDeniedEvent,
  type AccessGrantedEvent,
  type AuthenticationFailureEvent,
  type AuthenticationFailureReason,
  type AuthenticationSuccessEvent,
  type CsrfRejectedEvent,
  type DeadlineExceededEvent,
  type LogoutEvent,
  type SessionRevokedEvent,
  type ExpressionErrorEvent,
  type RequestRejectedEvent,
  type RequestSummary,
  type SecurityEvent,
  type SecurityEventListener,
  type SecurityEventType,
  type ThrottledEvent,
  type ThrottleStoreFailureEvent,
  type UnknownPasswordEncoderEvent,
} from './events.js';
export {
  createSecurityRequest,
  type SecurityRequest,
  type SecurityRequestInit,
} from './request.js';
export {
  GRANTED,
  attemptWith,
  authenticateWith,
  type AuthorizationDecision,
  type AuthorizationExplanation,
  type Authenticator,
  type Authorizer,
  type SecurityResponse,
} from './security.js';
export type { BodyReader, SecurityRoutes } from './routes.js';
export { User, type AccountState } from './user.js';
