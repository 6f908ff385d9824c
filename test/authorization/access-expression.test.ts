import { describe, expect, it, vi } from 'vitest';
import {
  Access,
  AuthenticatedUser,
  AuthorizationManager,
  SecurityEvents,
  SecurityTransform,
  User,
  compileExpression,
  createSecurityRequest,
  expr,
  type Authenticator,
} from '../../src/index.js';

const user = (roles: string[] = [], authorities: string[] = []) =>
  AuthenticatedUser.from(new User('alice', 'x').withRoles(roles).withAuthorities(authorities));
const request = (url: string, method = 'GET') =>
  createSecurityRequest({ method, url, header: () => undefined });

describe('Access.expression', () => {
  const access = Access.expression("hasRole('ADMIN') AND hasAuthority('users:write')");

  it('grants, forbids or asks for a login as the expression says', () => {
    expect(access.check(user(['ADMIN'], ['users:write']))).toBe('granted');
    expect(access.check(user(['ADMIN']))).toBe('forbidden');
    expect(access.check(user([], ['users:write']))).toBe('forbidden');
    expect(access.check(null)).toBe('unauthenticated');
    expect(String(access)).toBe("hasRole('ADMIN') and hasAuthority('users:write')");
  });

  it('means the same as the equivalent roles and authorities', () => {
    const viaLists = new Access().roles(['ADMIN']).authorities(['users:write']);
    for (const who of [null, user(), user(['ADMIN']), user(['ADMIN'], ['users:write'])]) {
      expect(access.check(who)).toBe(viaLists.check(who));
    }
  });

  it('takes trees from the builder, with role names from data checked literally', () => {
    const odd = "x') or permitAll or hasRole('y";
    const fromData = new Access().expression(expr.hasRole(odd));
    expect(fromData.check(user(['x', 'y']))).toBe('forbidden');
    expect(fromData.check(user([odd]))).toBe('granted');
  });

  it('fails at definition with the expression error and its column', () => {
    const dynamic: string = "hasRole('ADMIN') and hasRoel('X')";
    expect(() => Access.expression(dynamic)).toThrow(
      expect.objectContaining({ code: 'ERR_EXPRESSION_UNKNOWN_FUNCTION', column: 22 }),
    );
  });

  it('refuses args in URL rules and mixing with other requirements', () => {
    const readsArgs: string = "args.id == 'x'";
    expect(() => Access.expression(readsArgs)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTION', option: 'expression' }),
    );
    expect(() => Access.roles(['A']).expression('permitAll')).toThrow(
      expect.objectContaining({ option: 'expression' }),
    );
    expect(() => Access.expression('permitAll').roles(['A'])).toThrow(
      expect.objectContaining({ option: 'roles' }),
    );
    expect(() => Access.expression('permitAll').permitAll()).toThrow(
      expect.objectContaining({ option: 'permitAll' }),
    );
  });

  it('works in URL rules, with the expression in the denial rule', () => {
    const authorizer = AuthorizationManager.requestMatcher().addMatcher(
      '/admin/.*',
      Access.expression("hasRole('ADMIN') or hasAuthority('admin:read')"),
    );
    expect(authorizer.authorize(user([], ['admin:read']), request('/admin/x'))).toEqual({
      granted: true,
    });
    expect(authorizer.authorize(user(['USER']), request('/admin/x'))).toMatchObject({
      granted: false,
      reason: 'forbidden',
      rule: "/admin/.* → hasRole('ADMIN') or hasAuthority('admin:read')",
    });
  });
});

describe('Access.expression with an asynchronous custom function', () => {
  const events = new SecurityEvents();
  const lookups = vi.fn((_user: AuthenticatedUser | null, team: unknown) =>
    Promise.resolve(team === 'ops'),
  );
  const onCall = compileExpression("hasRole('ADMIN') or onCall('ops')", {
    functions: { onCall: { params: ['string'], async: true, call: lookups } },
    events,
  });
  const fixed = (roles: string[]): Authenticator => ({
    getUser: () => new User('bob', 'x').withRoles(roles),
  });
  const transform = (roles: string[]) =>
    new SecurityTransform()
      .configAuthenticator(() => fixed(roles))
      .configAuthorizer(() =>
        AuthorizationManager.requestMatcher().addMatcher('/pager', new Access().expression(onCall)),
      );

  it('makes the rule asynchronous and short-circuits for admins', async () => {
    expect(onCall.async).toBe(true);
    const admin = await transform(['ADMIN']).handle(request('/pager'));
    expect(admin.proceed).toBe(true);
    expect(lookups).not.toHaveBeenCalled();
    const someone = await transform([]).handle(request('/pager'));
    expect(someone.proceed).toBe(true);
    expect(lookups).toHaveBeenCalledOnce();
  });

  it('denies when the custom function fails', async () => {
    const failing = compileExpression("not broken('x')", {
      functions: {
        broken: {
          params: ['string'],
          async: true,
          call: () => Promise.reject(new Error('backend down')),
        },
      },
      events,
    });
    const seen: string[] = [];
    events.on('expression-error', (event) => {
      seen.push(event.function);
    });
    const outcome = await new SecurityTransform()
      .configAuthenticator(() => fixed([]))
      .configAuthorizer(() =>
        AuthorizationManager.requestMatcher().addMatcher('/x', Access.expression(failing)),
      )
      .handle(request('/x'));
    expect(outcome.proceed).toBe(false);
    expect(seen).toEqual(['broken']);
  });
});
