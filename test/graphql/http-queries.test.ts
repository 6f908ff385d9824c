/**
 * How denials travel through real operations over HTTP on each server: aliases,
 * fragments, `__typename`, lists, null propagation, mutations that must not run,
 * and ownership rules on arguments sent as variables.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  calls,
  closeAll,
  codes,
  createSchema,
  post,
  SERVERS,
  startServers,
  type GraphQLServer,
  type Who,
} from './support.js';

const U = 'UNAUTHENTICATED';
const F = 'FORBIDDEN';

let servers: readonly GraphQLServer[] = [];
beforeAll(async () => {
  servers = await startServers(createSchema());
});
afterAll(() => closeAll(servers));
beforeEach(() => {
  calls.clear();
});

describe.each(SERVERS)('%s', (name) => {
  const url = (): string => servers.find((s) => s.name === name)!.url;

  it('names a denied field by its alias, however it is reached (alias, named and inline fragments)', async () => {
    const query = `
      query { mine: securedList pub: open ...F ... on Query { inline: securedList } }
      fragment F on Query { again: securedList }`;
    const answer = await post(url(), query, { who: 'user' });
    expect(answer.data).toEqual({ mine: null, pub: 'user', again: null, inline: null });
    expect(codes(answer)).toEqual({ mine: F, again: F, inline: F });
    expect(calls.get('securedList')).toBeUndefined();
    expect(calls.get('open')).toBe(1);
  });

  it('answers __typename next to a denied field', async () => {
    const answer = await post(url(), '{ __typename securedOne }', { who: 'anonymous' });
    expect(answer.data).toEqual({ __typename: 'Query', securedOne: null });
    expect(codes(answer)).toEqual({ securedOne: U });
  });

  it('denies a protected field inside a list at each index', async () => {
    const answer = await post(url(), '{ posts { id secret } }', { who: 'writer' });
    expect(answer.data).toEqual({
      posts: [
        { id: 'p1', secret: null },
        { id: 'p2', secret: null },
      ],
    });
    expect(answer.errors?.map((e) => e.path)).toEqual([
      ['posts', 0, 'secret'],
      ['posts', 1, 'secret'],
    ]);
    const admin = await post(url(), '{ posts { secret } }', { who: 'admin' });
    expect(admin.data).toEqual({ posts: [{ secret: 'secret p1' }, { secret: 'secret p2' }] });
  });

  it('bubbles a denied non-null field up to its nullable parent; other fields still resolve', async () => {
    const answer = await post(url(), '{ open vault { label code } vaults { label code } }', {
      who: 'user',
    });
    expect(answer.data).toEqual({ open: 'user', vault: null, vaults: [null, null] });
    expect(codes(answer)).toEqual({ 'vault.code': F, 'vaults.0.code': F, 'vaults.1.code': F });
    const admin = await post(url(), '{ vault { label code } }', { who: 'admin' });
    expect(admin.data).toEqual({ vault: { label: 'v', code: 'c' } });
  });

  it('never runs the resolver of a denied mutation', async () => {
    const mutation = 'mutation { createPost(title: "t") { id title } }';
    for (const who of ['anonymous', 'user', 'guest'] as const) {
      const answer = await post(url(), mutation, { who });
      expect(answer.data).toEqual({ createPost: null });
      expect(codes(answer)).toEqual({ createPost: who === 'anonymous' ? U : F });
    }
    expect(calls.get('createPost')).toBeUndefined();
    const allowed = await post(url(), mutation, { who: 'writer' });
    expect(allowed.data).toEqual({ createPost: { id: 'new', title: 't' } });
    expect(calls.get('createPost')).toBe(1);
  });

  it('runs an allowed mutation even when a field of its result is denied (no operation check)', async () => {
    const answer = await post(url(), 'mutation { createPost(title: "t") { id secret } }', {
      who: 'writer',
    });
    expect(answer.data).toEqual({ createPost: { id: 'new', secret: null } });
    expect(codes(answer)).toEqual({ 'createPost.secret': F });
    expect(calls.get('createPost')).toBe(1);
  });

  describe('ownership: args.authorId == principal.username, with variables', () => {
    const RENAME = `mutation Rename($authorId: String!, $title: String!) {
      renamePost(authorId: $authorId, title: $title)
    }`;
    const CASES: [who: Who, authorId: string, outcome: string][] = [
      ['writer', 'writer', 'OK'],
      ['writer', 'user', F],
      ['user', 'user', 'OK'],
      ['user', 'writer', F],
      ['guest', 'guest', 'OK'],
      ['admin', 'writer', 'OK'],
      ['anonymous', 'anonymous', U],
      ['anonymous', '', U],
      ['writer', 'Writer', F],
      ['writer', 'writer ', F],
      ['writer', "user' or '1' == '1", F],
    ];

    it('lets owners and admins rename, and nobody else; a denied rename never runs', async () => {
      const seen: string[] = [];
      const expected: string[] = [];
      for (const [who, authorId, outcome] of CASES) {
        const answer = await post(url(), RENAME, { who, variables: { authorId, title: 'new' } });
        const code = answer.errors?.[0]?.extensions?.['code'];
        seen.push(`${who}→${authorId}: ${typeof code === 'string' ? code : 'OK'}`);
        expected.push(`${who}→${authorId}: ${outcome}`);
        if (outcome === 'OK') {
          expect(answer.data).toEqual({
            renamePost: `${who} renamed ${authorId}'s post to new`,
          });
        } else {
          expect(answer.data).toEqual({ renamePost: null });
        }
      }
      expect(seen).toEqual(expected);
      expect(calls.get('renamePost')).toBe(CASES.filter(([, , o]) => o === 'OK').length);
    });

    it('reads the argument of a query field from variables and from literals alike', async () => {
      const query =
        'query ($a: String!) { byVariable: postsBy(authorId: $a) literal: postsBy(authorId: "user") }';
      const answer = await post(url(), query, { who: 'user', variables: { a: 'writer' } });
      expect(answer.data).toEqual({ byVariable: null, literal: ["user's post"] });
      expect(codes(answer)).toEqual({ byVariable: F });
    });

    it('refuses a variable of the wrong type before any rule or resolver runs', async () => {
      const answer = await post(url(), RENAME, {
        who: 'writer',
        variables: { authorId: { $ne: null }, title: 'new' },
      });
      expect(answer.data).toBeUndefined();
      expect(answer.errors?.length).toBeGreaterThan(0);
      expect(calls.get('renamePost')).toBeUndefined();
    });
  });
});
