import type { SecurityRequest } from './request.js';

/**
 * A credential the client presented and an authenticator refused, noted on the
 * request so that the 401 entry point can say so in its challenge (RFC 6750 §3:
 * `Bearer error="invalid_token"`). Never contains the credential.
 */
export interface CredentialFailure {
  /** The auth-scheme of the challenge to extend, e.g. `Bearer`. */
  readonly scheme: string;
  /** The RFC 6750 error code. */
  readonly error: 'invalid_request' | 'invalid_token';
  /** A fixed, human-readable description (no part of the credential). */
  readonly description: string;
}

const failures = new WeakMap<SecurityRequest, CredentialFailure>();

/**
 * Notes that the request's credential for `failure.scheme` was refused (an
 * authenticator calls it before answering anonymous). The last note wins.
 */
export function noteCredentialFailure(request: SecurityRequest, failure: CredentialFailure): void {
  failures.set(request, Object.freeze({ ...failure }));
}

/** The credential failure noted on the request, if any. */
export function credentialFailureOf(request: SecurityRequest): CredentialFailure | undefined {
  return failures.get(request);
}

/**
 * A request an authenticator refused to authenticate for a reason that is not a
 * bad credential (a cookie-authenticated request failing the CSRF checks): the entry
 * point answers 403 instead of 401 or a login redirect.
 */
export interface RequestRefusal {
  readonly status: 403;
  /** e.g. `csrf`. */
  readonly reason: string;
}

const refusals = new WeakMap<SecurityRequest, RequestRefusal>();

/** Notes that the request was refused (see {@link RequestRefusal}). */
export function noteRefusal(request: SecurityRequest, refusal: RequestRefusal): void {
  refusals.set(request, Object.freeze({ ...refusal }));
}

/** The refusal noted on the request, if any. */
export function refusalOf(request: SecurityRequest): RequestRefusal | undefined {
  return refusals.get(request);
}
