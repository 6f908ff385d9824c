import { describe, expect, it } from 'vitest';
import type { AuthenticatedUser } from '../../src/core/index.js';
import {
  compileExpression,
  expr,
  parseExpression,
  printExpression,
} from '../../src/expression/index.js';
import { user } from './helpers.js';

const check = (text: string, who: AuthenticatedUser | null): boolean =>
  compileExpression(text).evaluate(who);

describe('role and authority functions', () => {
  const admin = user(['ADMIN', 'USER'], ['users:write', 'posts:read']);

  it.each([
    ["hasRole('ADMIN')", true],
    ["hasRole('admin')", false],
    ["hasRole('ROLE_ADMIN')", false],
    ["hasRole('ADMIN ')", false],
    ["hasAnyRole('GUEST', 'USER')", true],
    ["hasAnyRole('GUEST', 'OTHER')", false],
    ["hasAnyRole('ADMIN')", true],
    ["hasAuthority('users:write')", true],
    ["hasAuthority('users:WRITE')", false],
    ["hasAuthority('users')", false],
    ["hasAnyAuthority('x', 'posts:read')", true],
    ["hasAnyAuthority('x', 'y')", false],
    ["hasAuthority('ADMIN')", false],
    ["hasRole('users:write')", false],
    ['isAuthenticated()', true],
    ['isAnonymous()', false],
    ['permitAll()', true],
    ['permitAll', true],
    ['denyAll()', false],
    ['true', true],
    ['false', false],
  ])('%s for an admin is %s', (text, expected) => {
    expect(check(text, admin)).toBe(expected);
  });

  it('matches no ROLE_ prefix in either direction (unlike Spring)', () => {
    const springish = user(['ROLE_ADMIN']);
    expect(check("hasRole('ADMIN')", springish)).toBe(false);
    expect(check("hasRole('ROLE_ADMIN')", springish)).toBe(true);
  });

  it('matches authorities exactly: a:b is not a:b:c, nor a prefix', () => {
    const holder = user([], ['a:b:c', 'posts:*']);
    expect(check("hasAuthority('a:b')", holder)).toBe(false);
    expect(check("hasAuthority('a:b:c')", holder)).toBe(true);
    expect(check("hasAnyAuthority('a', 'a:b', 'a:b:c:d')", holder)).toBe(false);
    expect(check("hasAuthority('posts:read')", holder)).toBe(false);
  });

  it.each([
    "hasRole('constructor')",
    "hasRole('__proto__')",
    "hasRole('toString')",
    "hasRole('hasOwnProperty')",
    "hasAnyRole('valueOf', 'constructor', '__proto__')",
    "hasAuthority('constructor')",
    "hasAuthority('__proto__')",
    "hasAnyAuthority('prototype', 'then')",
  ])('treats %s as a plain name: false for a user without it', (text) => {
    expect(check(text, user())).toBe(false);
    expect(check(text, user(['USER'], ['posts:read']))).toBe(false);
    expect(check(text, null)).toBe(false);
  });

  it('finds a prototype name when the user really holds it', () => {
    const odd = user(['__proto__', 'constructor'], ['__proto__']);
    expect(check("hasRole('__proto__')", odd)).toBe(true);
    expect(check("hasRole('constructor') and hasAuthority('__proto__')", odd)).toBe(true);
    expect(check("hasAuthority('constructor')", odd)).toBe(false);
  });
});

describe('the anonymous user', () => {
  it.each([
    ["hasRole('USER')", false],
    ["hasAnyRole('USER', 'ADMIN')", false],
    ["hasAuthority('posts:read')", false],
    ["hasAnyAuthority('posts:read')", false],
    ['isAuthenticated()', false],
    ['isAnonymous()', true],
    ['permitAll', true],
    ['denyAll()', false],
    // A negation is the negation of a failed check.
    ["not hasRole('BANNED')", true],
    ["isAnonymous() or hasRole('USER')", true],
    ["isAuthenticated() and not hasRole('BANNED')", false],
  ])('%s is %s', (text, expected) => {
    expect(check(text, null)).toBe(expected);
    // `undefined` (a missing context user) is anonymous too.
    expect(compileExpression(text).evaluate(undefined as unknown as null)).toBe(expected);
  });

  it('isAnonymous() is true only for the anonymous user', () => {
    expect(check('isAnonymous()', user())).toBe(false);
    expect(check('isAnonymous()', user(['ANONYMOUS']))).toBe(false);
  });
});

describe('role names built from data cannot inject syntax', () => {
  const odd = "x') or permitAll() or hasRole('y";

  it('checks exactly the odd role name', () => {
    const rule = compileExpression(expr.hasRole(odd));
    expect(rule.evaluate(null)).toBe(false);
    expect(rule.evaluate(user())).toBe(false);
    expect(rule.evaluate(user(['x', 'y']))).toBe(false);
    expect(rule.evaluate(user([odd]))).toBe(true);
    expect(rule.ast).toEqual({
      type: 'call',
      name: 'hasRole',
      args: [{ type: 'literal', value: odd }],
    });
    expect(rule.source).toBe("hasRole('x\\') or permitAll() or hasRole(\\'y')");
  });

  it.each([
    odd,
    'x" or permitAll or hasRole("y',
    "a\\' or permitAll or '",
    "a\\\\') or permitAll() or ('",
    "line\nbreak') or permitAll() or hasRole('",
    'bidi\u202e) or permitAll() or (\u202c',
    'sep\u2028or permitAll',
    '\\u0027) or permitAll() or hasRole(\\u0027',
    "lone \ud800 surrogate' or permitAll or '",
  ])('keeps %j one argument of one call', (name) => {
    const ast = expr.hasAnyRole(name, 'OTHER');
    const text = printExpression(ast);
    expect(parseExpression(text)).toEqual(ast);
    const rule = compileExpression(ast);
    expect(rule.evaluate(user(['ADMIN']))).toBe(false);
    expect(text).not.toMatch(/[\n\r\u2028\u2029\u202e\ud800]/u);
  });

  it('treats comparison literals from data as data', () => {
    const rule = compileExpression(expr.eq(expr.args('id'), "1' or permitAll or '"));
    expect(rule.evaluate(user(), { id: '1' })).toBe(false);
    expect(rule.evaluate(user(), { id: "1' or permitAll or '" })).toBe(true);
  });
});
