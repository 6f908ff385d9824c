import type { Random } from './random.js';

// What the fuzzer sends: the example's routes and payloads, and the ways it bends them.

export const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
export const PRINTABLE =
  ' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~';

export const PATHS = [
  '/',
  '/health',
  '/profile',
  '/posts',
  '/admin',
  '/admin/dashboard',
  '/admin/users',
  '/api/data',
  '/api/profile',
  '/me',
  '/login',
  '/logout',
  '/auth/login',
  '/auth/refresh',
  '/trpc/profile',
  '/trpc/health',
  '/trpc/posts.list',
  '/trpc/posts.create',
  '/trpc/posts.rename',
  '/trpc/admin.dashboard',
  '/trpc/admin.createUser',
  '/graphql',
  '/oauth2/authorization/local',
  '/login/oauth2/code/local',
  '/nope',
];

export const METHODS = [
  'GET',
  'GET',
  'GET',
  'POST',
  'POST',
  'HEAD',
  'PUT',
  'DELETE',
  'OPTIONS',
  'PATCH',
];
export const ODD_METHODS = [
  'get',
  'Post',
  'TRACE',
  'CONNECT',
  'FOO',
  'PROPFIND',
  'GET\u0000',
  'G ET',
  'M-SEARCH',
  '',
];

export const GRAPHQL_QUERIES = [
  '{ profile { username roles authorities } }',
  '{ health }',
  '{ posts { id title authorId } }',
  '{ adminDashboard { users posts } }',
  'query Q { a: profile { username } b: profile { roles } }',
  '{ profile { ...P } } fragment P on Profile { username }',
  '{ profile { ... on Profile { username } } health }',
  'mutation { createPost(title: "fuzz") { id authorId title } }',
  'mutation { createUser(username: "fuzz") }',
  'mutation { renamePost(authorId: "writer", title: "t") { authorId title } }',
  'mutation { renamePost(authorId: "admin", title: "t") { authorId } }',
  '{ __schema { queryType { name } types { name } } }',
  '{ __typename profile { __typename username } }',
  'subscription { health }',
  '{ profile(x: 1) { username } }',
  '{ profile { username password } }',
  '{ ' + 'profile { '.repeat(3) + 'username }}}',
  '{',
  '',
  'query ($t: String!) { posts { title } } ',
  '{ a: profile { username } a: health }',
  `{ ${Array.from({ length: 50 }, (_, i) => `p${i}: profile { username }`).join(' ')} }`,
  `${'{ profile '.repeat(1)}{ username } }`,
];

export const TRPC_CALLS = [
  ['GET', '/trpc/profile'],
  ['GET', '/trpc/health'],
  ['GET', '/trpc/posts.list'],
  ['GET', '/trpc/admin.dashboard'],
  ['GET', '/trpc/profile,health?batch=1&input=%7B%7D'],
  ['GET', '/trpc/profile,admin.dashboard,posts.list?batch=1'],
  ['GET', '/trpc/profile?input=%7B%22json%22%3A1%7D'],
  ['GET', '/trpc/profile?input=%7B'],
  ['POST', '/trpc/posts.create'],
  ['POST', '/trpc/posts.rename'],
  ['POST', '/trpc/admin.createUser'],
  ['POST', '/trpc/posts.create,admin.createUser?batch=1'],
  ['POST', '/trpc/profile'],
  ['GET', '/trpc/posts.create'],
  ['GET', '/trpc/nope'],
  ['GET', '/trpc/'],
  ['GET', '/trpc/__proto__'],
  ['GET', '/trpc/posts.list.constructor'],
] as const;

export const TRPC_BODIES = [
  '{"title":"fuzz"}',
  '{"authorId":"writer","title":"t"}',
  '{"authorId":"admin","title":"t"}',
  '{"username":"fuzz"}',
  '{"0":{"title":"x"},"1":{"username":"y"}}',
  '{"title":""}',
  '{"title":' + '"x'.repeat(1) + 'x".repeat(300)}',
  '{"__proto__":{"admin":true},"title":"x"}',
  'null',
  '[]',
  '{',
  '',
];

/** A credential spelled differently: whitespace or padding inside, spare bits set, another alphabet. */
export function respell(r: Random, value: string): string {
  const at = 1 + r.int(Math.max(1, value.length - 2));
  switch (r.int(6)) {
    case 0:
      return value.slice(0, at) + r.pick(['\t', ' ', '\u00a0', '\u000b']) + value.slice(at);
    case 1:
      return `${value}${r.pick(['=', '==', '.', '%3D'])}`;
    case 2: {
      const last = value.charAt(value.length - 1);
      const index = B64URL.indexOf(last);
      return index < 0 ? `${value}A` : value.slice(0, -1) + B64URL.charAt(index ^ 1);
    }
    case 3:
      return (
        value.replaceAll('-', '+').replaceAll('_', '/') +
        (value.includes('-') || value.includes('_') ? '' : '+')
      );
    case 4:
      return value.slice(0, at) + value.slice(at + 1);
    default:
      return (
        value.slice(0, at) +
        value.charAt(at).toUpperCase() +
        value.slice(at + 1) +
        (/[a-z]/u.test(value.charAt(at)) ? '' : '~')
      );
  }
}

export function mutatePath(r: Random, path: string): string {
  switch (r.int(14)) {
    case 0:
      return `${path}/`;
    case 1:
      return path.replace('/', '//');
    case 2:
      return `/./${path.slice(1)}`;
    case 3:
      return `/x/..${path}`;
    case 4:
      return path.replace(/\/([a-z])/u, (_, c: string) => `/%${c.charCodeAt(0).toString(16)}`);
    case 5:
      return path.replaceAll('/', r.pick(['%2F', '%2f', '%252F', '\\']));
    case 6:
      return path.toUpperCase();
    case 7:
      return `${path};jsessionid=x`;
    case 8:
      return `${path}?${r.pick(['a=b', 'access_token=x', 'continue=/admin', '%zz', '&&&', 'a=%00'])}`;
    case 9:
      return `${path}%00`;
    case 10:
      return `${path}%c0%af..%c0%af`;
    case 11:
      return `${path}/..%2f..%2fadmin`;
    case 12:
      return `${path}%E2%80%AE`;
    default:
      return `${path}/${'x'.repeat(r.pick([1, 500, 9000]))}`;
  }
}

export function mutateText(r: Random, text: string): string {
  const at = r.int(text.length + 1);
  return text.slice(0, at) + r.string(PRINTABLE, 1 + r.int(5)) + text.slice(at + r.int(3));
}
