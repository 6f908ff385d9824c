/**
 * "Why was I refused?": compiled expressions, `Access` and the URL-rule authorizer
 * explain a decision with the term that decided; each explanation agrees with the
 * decision the per-request path makes.
 */
import {
  Access,
  AuthorizationManager,
  compileExpression,
  createSecurityRequest,
  type AuthenticatedUser,
} from 'portcullis';
import { mockUser } from 'portcullis/testing';
import { describe, expect, it } from 'vitest';

const reader = mockUser('reader', { roles: ['USER'], authorities: ['posts:read'] });
const admin = mockUser('root', { roles: ['ADMIN', 'USER'], authorities: [] });

function request(method: string, url: string) {
  return createSecurityRequest({ method, url, header: () => undefined });
}

describe('compileExpression(...).explain', () => {
  const canWrite = compileExpression("hasRole('USER') and hasAuthority('posts:write')");

  it('names the operand of an and that failed', async () => {
    const why = await canWrite.explain(reader);
    expect(why).toEqual({
      granted: false,
      term: "hasAuthority('posts:write')",
      functionFailed: false,
    });
    expect(canWrite.evaluate(reader)).toBe(false);
  });

  it('names the first failing operand, left to right, for an anonymous caller', async () => {
    expect((await canWrite.explain(null)).term).toBe("hasRole('USER')");
  });

  it('names the whole or when every operand failed, the operand that granted otherwise', async () => {
    const owner = compileExpression("hasRole('ADMIN') or args.authorId == principal.username");
    expect(await owner.explain(reader, { authorId: 'someone' })).toMatchObject({
      granted: false,
      term: "hasRole('ADMIN') or args.authorId == principal.username",
    });
    expect(await owner.explain(reader, { authorId: 'reader' })).toMatchObject({
      granted: true,
      term: 'args.authorId == principal.username',
    });
    expect(await owner.explain(admin, {})).toMatchObject({
      granted: true,
      term: "hasRole('ADMIN')",
    });
  });

  it('names the not whose operand held', async () => {
    const notAdmin = compileExpression("hasRole('USER') and not hasRole('ADMIN')");
    expect(await notAdmin.explain(admin)).toMatchObject({
      granted: false,
      term: "not hasRole('ADMIN')",
    });
    expect(await notAdmin.explain(reader)).toMatchObject({ granted: true });
  });

  it('names a custom function that failed: it denies the whole expression, even under or and not', async () => {
    const failing = compileExpression("not broken() or hasRole('USER')", {
      functions: {
        broken: {
          params: [],
          call: () => {
            throw new Error('boom');
          },
        },
      },
    });
    expect(failing.evaluate(reader)).toBe(false);
    expect(await failing.explain(reader)).toEqual({
      granted: false,
      term: 'broken()',
      functionFailed: true,
    });
  });

  it('explains asynchronous custom functions', async () => {
    const owns = compileExpression("hasRole('USER') and owns(args.id)", {
      functions: {
        owns: {
          params: ['reference'],
          async: true,
          call: (user: AuthenticatedUser | null, id: unknown) =>
            Promise.resolve(id === user?.username),
        },
      },
    });
    expect(await owns.explain(reader, { id: 'x' })).toMatchObject({
      granted: false,
      term: 'owns(args.id)',
    });
    expect(await owns.explain(reader, { id: 'reader' })).toMatchObject({ granted: true });
  });

  it('agrees with evaluate on every combination of a few users and arguments', async () => {
    const expressions = [
      "hasRole('USER') and hasAuthority('posts:read')",
      "hasAnyRole('ADMIN', 'EDITOR') or (hasRole('USER') and args.owner == principal.username)",
      "not isAnonymous() and not hasAuthority('banned')",
      "isAuthenticated() and (args.public == true or hasRole('ADMIN'))",
    ].map((text) => compileExpression(text));
    const users = [null, reader, admin, mockUser('banned', { authorities: ['banned'] })];
    const argsList = [{}, { owner: 'reader' }, { public: true }, { owner: 'root', public: false }];
    for (const expression of expressions) {
      for (const user of users) {
        for (const args of argsList) {
          const why = await expression.explain(user, args);
          expect(why.granted, `${expression.source} for ${user?.username ?? 'anonymous'}`).toBe(
            expression.evaluate(user, args),
          );
        }
      }
    }
  });
});

describe('Access.explain', () => {
  const access = new Access().roles(['ADMIN']).authorities(['users:write']);

  it('names the roles when they are missing, the authorities when only they are', async () => {
    expect(await access.explain(reader)).toEqual({
      outcome: 'forbidden',
      requirement: "hasAnyRole('ADMIN') and hasAnyAuthority('users:write')",
      term: "hasAnyRole('ADMIN')",
      functionFailed: false,
    });
    expect((await access.explain(admin)).term).toBe("hasAnyAuthority('users:write')");
    expect((await access.explain(null)).outcome).toBe('unauthenticated');
  });

  it('grants with the whole requirement, and explains permitAll, denyAll and authenticated', async () => {
    const writer = mockUser('w', { roles: ['ADMIN'], authorities: ['users:write'] });
    expect(await access.explain(writer)).toMatchObject({ outcome: 'granted' });
    expect(await Access.permitAll().explain(null)).toMatchObject({
      outcome: 'granted',
      term: 'permitAll',
    });
    expect(await Access.denyAll().explain(admin)).toMatchObject({
      outcome: 'forbidden',
      term: 'denyAll',
    });
    expect(await Access.authenticated().explain(null)).toMatchObject({
      outcome: 'unauthenticated',
      term: 'isAuthenticated()',
    });
  });

  it('explains an expression requirement with its failing term', async () => {
    const expression = Access.expression("hasRole('USER') and hasAuthority('posts:write')");
    expect(await expression.explain(reader)).toMatchObject({
      outcome: 'forbidden',
      term: "hasAuthority('posts:write')",
    });
  });
});

describe('RequestMatcherAuthorizer.explain', () => {
  const rules = AuthorizationManager.requestMatcher()
    .requestMatchers('/public/**', Access.permitAll())
    .requestMatchers(
      '/users/{id}',
      Access.expression("path.id == principal.username or hasRole('ADMIN')"),
    )
    .requestMatchers('/admin/users', new Access().roles(['ADMIN']).authorities(['users:write']), {
      methods: ['POST'],
    })
    .requestMatchers('/admin/**', new Access().roles(['ADMIN']));

  it('picks the rule authorize picks, and says why', async () => {
    const cases: [string, string, AuthenticatedUser | null][] = [
      ['GET', '/public/a', null],
      ['GET', '/users/reader', reader],
      ['GET', '/users/other', reader],
      ['GET', '/users/other', admin],
      ['POST', '/admin/users', admin],
      ['GET', '/admin/users', admin],
      ['GET', '/admin/x', reader],
      ['GET', '/elsewhere', null],
      ['GET', '/elsewhere', reader],
    ];
    for (const [method, url, user] of cases) {
      const decision = await rules.authorize(user, request(method, url));
      const why = await rules.explain(user, request(method, url));
      const label = `${method} ${url} as ${user?.username ?? 'anonymous'}`;
      expect(why.outcome === 'granted', label).toBe(decision.granted);
      if (!decision.granted) {
        expect(why.rule, label).toBe(decision.rule);
        expect(why.outcome, label).toBe(decision.reason);
      }
    }
  });

  it('names the rule, the requirement and the failing term', async () => {
    expect(await rules.explain(admin, request('POST', '/admin/users'))).toEqual({
      outcome: 'forbidden',
      rule: "/admin/users [POST] → hasAnyRole('ADMIN') and hasAnyAuthority('users:write')",
      requirement: "hasAnyRole('ADMIN') and hasAnyAuthority('users:write')",
      term: "hasAnyAuthority('users:write')",
      functionFailed: false,
    });
    expect(await rules.explain(reader, request('GET', '/users/other'))).toMatchObject({
      outcome: 'forbidden',
      term: "path.id == principal.username or hasRole('ADMIN')",
    });
    expect(await rules.explain(reader, request('GET', '/users/reader'))).toMatchObject({
      outcome: 'granted',
      term: 'path.id == principal.username',
    });
  });

  it('names deny by default for a path no rule matches', async () => {
    expect(await rules.explain(null, request('GET', '/elsewhere'))).toMatchObject({
      outcome: 'unauthenticated',
      rule: 'anyRequest (default) → isAuthenticated()',
    });
  });
});
