/**
 * The key under which {@link createSecurityContext} leaves the client's address on
 * the context, for the request summary of `access-denied` events. A symbol: it is
 * not part of the context's type, and object spread (`{ ...ctx, db }`) keeps it.
 *
 * @internal
 */
export const CLIENT_ADDRESS: unique symbol = Symbol('portcullis.trpc.clientAddress');

/** The client address recorded on a context, when there is one. @internal */
export function clientAddressOf(ctx: unknown): string | undefined {
  if (typeof ctx !== 'object' || ctx === null) return undefined;
  const value = (ctx as { [CLIENT_ADDRESS]?: unknown })[CLIENT_ADDRESS];
  return typeof value === 'string' ? value : undefined;
}
