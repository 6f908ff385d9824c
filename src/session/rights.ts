import { deadlineExceeded } from '../core/deadline.js';
import { DeadlineExceededError, UnavailableError } from '../core/errors.js';
import type { SecurityEvents } from '../core/events.js';
import type { SecurityRequest } from '../core/request.js';
import { accountRefusal, type User } from '../core/user.js';
import { withDeadline } from '../lib/deadline.js';

/**
 * Whether the user's current account (from `loadUser`, under its deadline) still has
 * the session's roles and authorities. A user gone, renamed or with other rights is
 * `false` (the session is revoked); a loader that throws is `false` too. A loader
 * past its deadline, or one that says it is unavailable, fails closed (503) and the
 * session is kept.
 *
 * @internal
 */
export async function sameRights(
  loadUser: (username: string) => User | null | Promise<User | null>,
  user: User,
  timeoutMs: number,
  events: SecurityEvents,
  request: SecurityRequest,
): Promise<boolean> {
  let current: User | null;
  try {
    current = await withDeadline(
      Promise.resolve().then(() => loadUser(user.username)),
      timeoutMs,
      () => deadlineExceeded('load-user', timeoutMs, events, request),
    );
  } catch (error) {
    if (error instanceof DeadlineExceededError || error instanceof UnavailableError) throw error;
    return false;
  }
  return (
    current !== null &&
    current.username === user.username &&
    // A locked, disabled or expired account ends its sessions (an expired password does not).
    accountRefusal(current, { credentials: false }) === undefined &&
    sameSet(current.roles, user.roles) &&
    sameSet(current.authorities, user.authorities)
  );
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const value of a) if (!b.has(value)) return false;
  return true;
}
