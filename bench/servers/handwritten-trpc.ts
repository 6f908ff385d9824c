/**
 * The hand-written tRPC middleware a user would write without portcullis, shared by
 * the HTTP (trpc.ts) and in-process (trpc-inprocess.ts) benchmark servers: `jwtVerify`
 * with a pre-imported key, then a role check; 401 and 403 as `TRPCError`s.
 */
import { TRPCError } from '@trpc/server';
import { webcrypto } from 'node:crypto';
import { jwtVerify, type CryptoKey } from 'jose';

/** The caller of a bearer `Authorization` header holding the role `USER`, else a TRPCError. */
export async function handwrittenCheck(
  header: string | null | undefined,
  key: CryptoKey | Uint8Array,
): Promise<{ readonly name: string; readonly roles: unknown[] }> {
  if (header?.startsWith('Bearer ') !== true) throw new TRPCError({ code: 'UNAUTHORIZED' });
  let roles: unknown;
  let sub: unknown;
  try {
    ({
      payload: { roles, sub },
    } = await jwtVerify(header.slice(7), key, { algorithms: ['HS256'] }));
  } catch {
    throw new TRPCError({ code: 'UNAUTHORIZED' });
  }
  if (!Array.isArray(roles) || !roles.includes('USER')) {
    throw new TRPCError({ code: 'FORBIDDEN' });
  }
  return { name: String(sub), roles };
}

/** The HS256 verification key a hand-written check imports once, at start-up. */
export function importHmacKey(secret: string): Promise<CryptoKey> {
  return webcrypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
}
