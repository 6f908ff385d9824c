/**
 * Type-level directives, field overrides and interfaces, over HTTP on each server:
 * the same data and denials whether a field is reached through the interface or
 * through an inline fragment on the concrete type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeAll,
  codes,
  createSchema,
  post,
  SERVERS,
  startServers,
  WHO,
  type Answer,
  type GraphQLServer,
  type ServerName,
  type Who,
} from './support.js';

const U = 'UNAUTHENTICATED';
const F = 'FORBIDDEN';

let servers: readonly GraphQLServer[] = [];
beforeAll(async () => {
  servers = await startServers(createSchema());
});
afterAll(() => closeAll(servers));

/** Data and denials (path → code) of an answer, for each demo user. */
async function byUser(
  name: ServerName,
  query: string,
): Promise<Record<Who, { data: unknown; denied: Record<string, unknown> }>> {
  const url = servers.find((s) => s.name === name)!.url;
  const out: Partial<Record<Who, { data: unknown; denied: Record<string, unknown> }>> = {};
  for (const who of WHO) {
    const answer: Answer = await post(url, query, { who });
    out[who] = { data: answer.data, denied: codes(answer) };
  }
  return out as Record<Who, { data: unknown; denied: Record<string, unknown> }>;
}

describe.each(SERVERS)('%s', (name) => {
  it('applies a type directive to the field returning it and to its fields; a stricter field overrides it', async () => {
    const account = (username: string | null, balance: string | null) => ({
      data: { account: { username, motto: 'carpe diem', balance } },
    });
    // Account is @secured(USER): Query.account itself refuses whoever lacks USER.
    expect(await byUser(name, '{ account { username motto balance } }')).toEqual({
      anonymous: { data: { account: null }, denied: { account: U } },
      user: { ...account('acct', null), denied: { 'account.balance': F } },
      writer: { ...account('acct', null), denied: { 'account.balance': F } },
      admin: { ...account('acct', '42'), denied: {} },
      guest: { data: { account: null }, denied: { account: F } },
    });
  });

  it('keeps a stricter field closed inside a looser (@authenticated) type', async () => {
    const settings = (theme: string | null, apiKey: string | null) => ({
      data: { settings: { theme, apiKey } },
    });
    expect(await byUser(name, '{ settings { theme apiKey } }')).toEqual({
      anonymous: { data: { settings: null }, denied: { settings: U } },
      user: { ...settings('dark', null), denied: { 'settings.apiKey': F } },
      writer: { ...settings('dark', null), denied: { 'settings.apiKey': F } },
      admin: { ...settings('dark', 'k-123'), denied: {} },
      guest: { ...settings('dark', null), denied: { 'settings.apiKey': F } },
    });
  });

  it('applies an interface field directive to implementing types, through the interface', async () => {
    const result = await byUser(name, '{ node(id: "a1") { __typename id internal } }');
    const node = (id: string | null, internal: string | null) => ({
      node: { __typename: 'Article', id, internal },
    });
    expect(result).toEqual({
      anonymous: { data: { node: null }, denied: { node: U } },
      user: { data: node('a1', null), denied: { 'node.internal': F } },
      writer: { data: node('a1', null), denied: { 'node.internal': F } },
      admin: { data: node('a1', 'internal a1'), denied: {} },
      guest: { data: { node: null }, denied: { node: F } },
    });
  });

  it('gives the same answers through an inline fragment on the concrete type', async () => {
    const viaInterface = await byUser(name, '{ node(id: "a1") { __typename id internal } }');
    const viaFragment = await byUser(
      name,
      '{ node(id: "a1") { __typename ... on Article { id internal } } }',
    );
    expect(viaFragment).toEqual(viaInterface);
  });

  it('applies the interface type directive to fields only the concrete types have', async () => {
    const query = `{ nodes { __typename internal ... on Article { title } ... on Comment { body } } }`;
    const result = await byUser(name, query);
    const nodes = (title: string | null, internal: string | null, body: string | null) => ({
      nodes: [
        { __typename: 'Article', internal, title },
        // Comment.internal is @permitAll: it overrides the interface field's @secured.
        { __typename: 'Comment', internal: 'internal c1', body },
      ],
    });
    expect(result).toEqual({
      // Query.nodes is non-null: refused, it nulls `data`.
      anonymous: { data: null, denied: { nodes: U } },
      user: { data: nodes('title a1', null, 'body c1'), denied: { 'nodes.0.internal': F } },
      writer: { data: nodes('title a1', null, 'body c1'), denied: { 'nodes.0.internal': F } },
      admin: { data: nodes('title a1', 'internal a1', 'body c1'), denied: {} },
      guest: { data: null, denied: { nodes: F } },
    });
  });

  it('guards a concrete field reached through a named fragment on the interface', async () => {
    const query = `{ node(id: "c1") { ...N } } fragment N on Node { id ... on Comment { internal body } }`;
    const result = await byUser(name, query);
    expect(result.user).toEqual({
      data: { node: { id: 'c1', internal: 'internal c1', body: 'body c1' } },
      denied: {},
    });
    expect(result.guest).toEqual({ data: { node: null }, denied: { node: F } });
  });
});
