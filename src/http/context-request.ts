import type { SecurityRequest } from '../core/request.js';

/**
 * The key under which `createTrpcContext` and `createGraphQLContext` leave the request
 * view on the context: for the rate limits of procedures and fields (the client
 * address behind trusted proxies needs the forwarded headers), and for the request
 * summary (the client address) of the guards' `access-denied` events. A symbol: it is not
 * part of the context's type, and object spread (`{ ...security, db }`) keeps it.
 *
 * @internal
 */
export const CONTEXT_REQUEST: unique symbol = Symbol('portcullis.request');

/** The request view recorded on a context, when there is one. @internal */
export function contextRequest(context: unknown): SecurityRequest | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  const value = (context as { [CONTEXT_REQUEST]?: unknown })[CONTEXT_REQUEST];
  return typeof value === 'object' && value !== null ? (value as SecurityRequest) : undefined;
}
