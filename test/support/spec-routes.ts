/**
 * SPEC.md's example routes and the status each demo user (examples/app.ts's
 * DEMO_USERS, password `<name>-password`) gets: every example application answers
 * them the same (the node example, the NestJS one on Express and Fastify).
 */
import { basic } from './server.js';

export type Who = 'anonymous' | 'user' | 'writer' | 'admin' | 'guest';
export const WHO: readonly Who[] = ['anonymous', 'user', 'writer', 'admin', 'guest'];

/** The routes table: method, path, and the status of each demo user. */
export const SPEC_ROUTES: readonly [method: string, path: string, statuses: Record<Who, number>][] =
  [
    ['GET', '/', { anonymous: 200, user: 200, writer: 200, admin: 200, guest: 200 }],
    ['GET', '/health', { anonymous: 200, user: 200, writer: 200, admin: 200, guest: 200 }],
    ['GET', '/profile', { anonymous: 401, user: 200, writer: 200, admin: 200, guest: 403 }],
    ['GET', '/posts', { anonymous: 401, user: 200, writer: 200, admin: 200, guest: 403 }],
    ['POST', '/posts', { anonymous: 401, user: 403, writer: 201, admin: 201, guest: 403 }],
    ['GET', '/admin', { anonymous: 401, user: 403, writer: 403, admin: 200, guest: 403 }],
    ['GET', '/admin/dashboard', { anonymous: 401, user: 403, writer: 403, admin: 200, guest: 403 }],
    ['POST', '/admin/users', { anonymous: 401, user: 403, writer: 403, admin: 201, guest: 403 }],
    ['GET', '/api/data', { anonymous: 401, user: 200, writer: 200, admin: 200, guest: 403 }],
    ['GET', '/api/profile', { anonymous: 401, user: 200, writer: 200, admin: 200, guest: 403 }],
  ];

/** A demo user's HTTP Basic credentials (none for `anonymous`). */
export const headersFor = (who: Who): Record<string, string> =>
  who === 'anonymous' ? {} : { authorization: basic(who, `${who}-password`) };

/** The status each demo user gets for `method path` at `origin`. */
export async function statusesAt(
  origin: string,
  method: string,
  path: string,
): Promise<Record<Who, number>> {
  const seen = {} as Record<Who, number>;
  for (const who of WHO) {
    const response = await fetch(`${origin}${path}`, { method, headers: headersFor(who) });
    await response.arrayBuffer();
    seen[who] = response.status;
  }
  return seen;
}
