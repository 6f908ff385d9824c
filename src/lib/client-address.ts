/**
 * The key under which the tRPC and GraphQL `createSecurityContext` leave the client's address on the
 * context, for the request summary of `access-denied` events. A symbol: it is not
 * part of the context's type, and object spread (`{ ...security, db }`) keeps it.
 *
 * @internal
 */
export const CLIENT_ADDRESS: unique symbol = Symbol('portcullis.clientAddress');

/** The client address recorded on a context, when there is one. @internal */
export function clientAddressOf(context: unknown): string | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  const value = (context as { [CLIENT_ADDRESS]?: unknown })[CLIENT_ADDRESS];
  return typeof value === 'string' ? value : undefined;
}
