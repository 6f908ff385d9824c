/**
 * Deny-by-default schemas (`defaultPolicy: 'authenticated'` and `'denyAll'`) over
 * HTTP on each server: unannotated fields are closed, introspection and
 * `__typename` stay open.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeAll,
  codes,
  createPolicySchema,
  post,
  SERVERS,
  startServers,
  WHO,
  type GraphQLServer,
  type Who,
} from './support.js';

const OK = 'OK';
const U = 'UNAUTHENTICATED';
const F = 'FORBIDDEN';

const POLICIES = {
  authenticated: {
    hello: { anonymous: U, user: OK, writer: OK, admin: OK, guest: OK },
    open: { anonymous: OK, user: OK, writer: OK, admin: OK, guest: OK },
    admin: { anonymous: U, user: F, writer: F, admin: OK, guest: F },
  },
  denyAll: {
    hello: { anonymous: U, user: F, writer: F, admin: F, guest: F },
    open: { anonymous: OK, user: OK, writer: OK, admin: OK, guest: OK },
    admin: { anonymous: U, user: F, writer: F, admin: OK, guest: F },
  },
} as const;

describe.each(Object.keys(POLICIES) as (keyof typeof POLICIES)[])(
  "defaultPolicy: '%s'",
  (policy) => {
    let servers: readonly GraphQLServer[] = [];
    beforeAll(async () => {
      servers = await startServers(createPolicySchema(policy));
    });
    afterAll(() => closeAll(servers));

    describe.each(SERVERS)('%s', (name) => {
      const url = (): string => servers.find((s) => s.name === name)!.url;

      it('answers the introspection query anonymously', async () => {
        const answer = await post(url(), getIntrospectionQuery());
        expect(answer.status).toBe(200);
        expect(answer.errors).toBeUndefined();
        const schema = (answer.data as { __schema: { types: { name: string }[] } }).__schema;
        expect(schema.types.map((t) => t.name)).toEqual(
          expect.arrayContaining(['Query', '__Schema', '__Type']),
        );
      });

      it('answers __typename and __type anonymously', async () => {
        const answer = await post(url(), '{ __typename __type(name: "Query") { name } }');
        expect(answer.errors).toBeUndefined();
        expect(answer.data).toEqual({ __typename: 'Query', __type: { name: 'Query' } });
      });

      for (const [field, expected] of Object.entries(POLICIES[policy])) {
        it(`${field}: each demo user and anonymous`, async () => {
          const seen: Record<string, unknown> = {};
          for (const who of WHO) {
            const answer = await post(url(), `{ __typename ${field} }`, { who });
            expect(answer.data).toEqual({
              __typename: 'Query',
              [field]: answer.errors ? null : `hello ${who}`,
            });
            seen[who] = codes(answer)[field] ?? OK;
          }
          expect(seen).toEqual(expected satisfies Record<Who, string>);
        });
      }
    });
  },
);
