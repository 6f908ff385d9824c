import type { AuthenticatedUser } from '../core/authenticated-user.js';

const users = new WeakMap<Request, AuthenticatedUser | null>();
const nonces = new WeakMap<Request, string>();

/** The user portcullis authenticated for this `Request`, or `null`. */
export function userOf(request: Request): AuthenticatedUser | null {
  return users.get(request) ?? null;
}

/** The CSP nonce of the response to this `Request`, when the policy uses one. */
export function getCspNonce(request: Request): string | undefined {
  return nonces.get(request);
}

/** @internal */
export function setUser(request: Request, user: AuthenticatedUser | null): void {
  users.set(request, user);
}

/** @internal */
export function setCspNonce(request: Request, nonce: string): void {
  nonces.set(request, nonce);
}
