import { AuthenticatedUser } from '../core/authenticated-user.js';

/** A TypeError unless `user` is an `AuthenticatedUser` or `null`. @internal */
export function requireUserOrNull(helper: string, user: unknown): void {
  if (user === null || user instanceof AuthenticatedUser) return;
  throw new TypeError(
    `${helper}: the user must be an AuthenticatedUser or null: build one with mockUser(), or AuthenticatedUser.from(user)`,
  );
}
