/**
 * A rule on a type guards every field that returns it (Apollo Router's semantics of
 * `@authenticated` / `@requiresScopes` on types): the attack is a mutation returning a
 * protected type, whose side effect must not run for a caller who may not see it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/check-schema.js';
import { ADMIN, ALICE, denials, run, secureSchema, userWith } from './schema.js';

const OPS = userWith('olga', ['OPS']);

const SDL = `
  type Query {
    stats: AdminStats
    allStats: [AdminStats!]!
    report: Report
    panel: Panel
    feed: [FeedItem]
  }
  type Mutation {
    promote(username: String!): AdminStats
    promoteMany(usernames: [String!]!): [AdminStats!]!
    promoteAny(username: String!): Panel @permitAll
  }
  type AdminStats @secured(roles: "ADMIN") { users: Int }
  type OpsStats @secured(roles: "OPS") { load: Int }
  "Every possible type is protected: the field needs ADMIN or OPS."
  union Panel = AdminStats | OpsStats
  type Note { text: String }
  "Note is open: the field runs, each AdminStats in it is guarded field by field."
  union FeedItem = AdminStats | Note
  interface Report @authenticated { title: String }
  type Daily implements Report { title: String }
`;

const calls = new Map<string, number>();
/** Counts a call of `name` and answers `value`. */
const counted = <T>(name: string, value: T): T => {
  calls.set(name, (calls.get(name) ?? 0) + 1);
  return value;
};
const stats = { __typename: 'AdminStats', users: 3 };

const schema = secureSchema(SDL, {
  Query: {
    stats: () => counted('stats', stats),
    allStats: () => counted('allStats', [stats]),
    report: () => counted('report', { __typename: 'Daily', title: 'today' }),
    panel: () => counted('panel', { __typename: 'OpsStats', load: 7 }),
    feed: () => counted('feed', [stats, { __typename: 'Note', text: 'hi' }]),
  },
  Mutation: {
    promote: () => counted('promote', stats),
    promoteMany: () => counted('promoteMany', [stats]),
    promoteAny: () => counted('promoteAny', stats),
  },
  Panel: { __resolveType: (o: { __typename: string }) => o.__typename },
  FeedItem: { __resolveType: (o: { __typename: string }) => o.__typename },
  Report: { __resolveType: (o: { __typename: string }) => o.__typename },
});

beforeEach(() => {
  calls.clear();
});

describe('a field returning a protected type', () => {
  it('never runs the side effect of a mutation for a caller lacking the type rule', async () => {
    const result = await run(schema, 'mutation { promote(username: "eve") { users } }', ALICE);
    expect(result.data).toEqual({ promote: null });
    expect(denials(result)).toEqual({ promote: 'FORBIDDEN' });
    expect(
      denials(await run(schema, 'mutation { promote(username: "eve") { users } }', null)),
    ).toEqual({ promote: 'UNAUTHENTICATED' });
    expect(calls.get('promote')).toBeUndefined();

    const admin = await run(schema, 'mutation { promote(username: "eve") { users } }', ADMIN);
    expect(admin).toEqual({ data: { promote: { users: 3 } } });
    expect(calls.get('promote')).toBe(1);
  });

  it('is guarded through lists and non-null', async () => {
    const mutation = 'mutation { promoteMany(usernames: ["eve"]) { users } }';
    const result = await run(schema, mutation, ALICE);
    expect(result.data).toBeNull();
    expect(denials(result)).toEqual({ promoteMany: 'FORBIDDEN' });
    expect(denials(await run(schema, '{ allStats { users } }', ALICE))).toEqual({
      allStats: 'FORBIDDEN',
    });
    expect(calls.size).toBe(0);
    expect((await run(schema, mutation, ADMIN)).data).toEqual({ promoteMany: [{ users: 3 }] });
  });

  it('even when the field itself is @permitAll (the field opens, the type stays closed)', async () => {
    // promoteAny returns Panel, whose every type is protected: ADMIN or OPS.
    const mutation = 'mutation { promoteAny(username: "eve") { __typename } }';
    expect(denials(await run(schema, mutation, ALICE))).toEqual({ promoteAny: 'FORBIDDEN' });
    expect(calls.get('promoteAny')).toBeUndefined();
    expect((await run(schema, mutation, OPS)).data).toEqual({
      promoteAny: { __typename: 'AdminStats' },
    });
  });

  it("takes an interface's type rule", async () => {
    const result = await run(schema, '{ report { title } }', null);
    expect(denials(result)).toEqual({ report: 'UNAUTHENTICATED' });
    expect(calls.get('report')).toBeUndefined();
    expect((await run(schema, '{ report { title } }', ALICE)).data).toEqual({
      report: { title: 'today' },
    });
  });

  it('of a union or interface whose every possible type is protected needs one of their rules', async () => {
    const query = '{ panel { ... on OpsStats { load } } }';
    expect(denials(await run(schema, query, ALICE))).toEqual({ panel: 'FORBIDDEN' });
    expect(calls.get('panel')).toBeUndefined();
    expect((await run(schema, query, OPS)).data).toEqual({ panel: { load: 7 } });
  });

  it('of a union with an open member runs; the protected members stay guarded field by field', async () => {
    const result = await run(
      schema,
      '{ feed { ... on AdminStats { users } ... on Note { text } } }',
      ALICE,
    );
    expect(result.data).toEqual({ feed: [{ users: null }, { text: 'hi' }] });
    expect(denials(result)).toEqual({ 'feed.0.users': 'FORBIDDEN' });
  });
});

describe('portcullis check-schema', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists the rule a field takes from the type it returns', async () => {
    dir = await mkdtemp(join(tmpdir(), 'portcullis-returned-'));
    const path = join(dir, 'schema.graphql');
    await writeFile(
      path,
      `type Query { health: String @permitAll, stats: AdminStats }
       type Mutation { promote: AdminStats @permitAll }
       type AdminStats @secured(roles: "ADMIN") { users: Int }`,
    );
    const out: string[] = [];
    const status = await main(['check-schema', '--list', path], {
      out: (text) => out.push(text),
      err: (text) => out.push(text),
    });
    expect(status).toBe(0);
    const text = out.join('\n');
    expect(text).toContain("Mutation.promote  hasRole('ADMIN')  (@secured on type AdminStats)");
    expect(text).toContain(
      "Query.stats  isAuthenticated() and hasRole('ADMIN')  (default policy authenticated and @secured on type AdminStats)",
    );
    expect(text).not.toContain('Query.health');
  });
});
