import { ConfigurationError } from '../core/errors.js';
import { didYouMean } from '../lib/suggest.js';

/**
 * What a tRPC procedure without `meta.auth` (`securityMeta`) or a GraphQL field
 * without a security directive (`securityDirectives`) gets: `'permitAll'` everyone,
 * `'authenticated'` any authenticated user, `'denyAll'` nobody (the SPEC's
 * `permit_all` and `deny_all`).
 */
export type DefaultPolicy = 'permitAll' | 'authenticated' | 'denyAll';

/** Every {@link DefaultPolicy}. @internal */
export const DEFAULT_POLICIES: readonly DefaultPolicy[] = Object.freeze([
  'permitAll',
  'authenticated',
  'denyAll',
]);

/** Former spellings and the policy they meant (tRPC's `'deny'` before 1.0). */
const RENAMED: Readonly<Record<string, DefaultPolicy>> = { deny: 'denyAll' };

/**
 * A `defaultPolicy` option, validated.
 *
 * @throws ConfigurationError (option `defaultPolicy`) for anything but a
 * {@link DefaultPolicy}, with a "did you mean" for a former or mistyped spelling
 * @internal
 */
export function requireDefaultPolicy(value: unknown): DefaultPolicy {
  if ((DEFAULT_POLICIES as readonly unknown[]).includes(value)) return value as DefaultPolicy;
  let hint = '';
  if (typeof value === 'string') {
    const renamed = Object.hasOwn(RENAMED, value) ? RENAMED[value] : undefined;
    hint =
      renamed === undefined ? didYouMean(value, DEFAULT_POLICIES) : didYouMean(renamed, [renamed]);
  }
  throw new ConfigurationError(
    'defaultPolicy',
    `must be 'permitAll', 'authenticated' or 'denyAll'${hint}`,
  );
}
