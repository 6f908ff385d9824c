/**
 * The kit refuses to run in a process started with `NODE_ENV=production`.
 *
 * Why at each call and not when the module loads: importing the kit creates nothing
 * (the package is `sideEffects: false`, and a bundler may keep or drop a module's
 * top-level code), while each helper that makes a user, a credential or a caller
 * checks here. A test file imported by production code by mistake (a shared fixture, a
 * seed script) then fails loudly the first time it would mint a token or act as a
 * user, instead of serving with a test secret or a user nobody authenticated. Test
 * runners set `NODE_ENV=test` (Vitest, Jest) or leave it unset.
 *
 * @internal
 */
export function refuseInProduction(helper: string): void {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  if (env?.['NODE_ENV'] === 'production') {
    throw new Error(
      `${helper}: portcullis/testing refuses to run with NODE_ENV=production: it makes users and credentials without authenticating anyone. Run tests with NODE_ENV=test (or unset).`,
    );
  }
}
