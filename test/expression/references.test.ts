import { describe, expect, it, vi } from 'vitest';
import { compileExpression } from '../../src/expression/index.js';
import { user } from './helpers.js';

const alice = user(['USER'], [], {
  username: 'alice',
  attributes: { tenant: 'acme', level: 3, org: { id: 7, tags: ['a', 'b'] }, nothing: null },
});

const check = (text: string, args: unknown, who = alice as typeof alice | null): boolean =>
  compileExpression(text).evaluate(who, args);

describe('ownership rules', () => {
  const rule = "hasRole('ADMIN') or args.authorId == principal.username";

  it('lets the owner and admins in, nobody else', () => {
    expect(check(rule, { authorId: 'alice' })).toBe(true);
    expect(check(rule, { authorId: 'bob' })).toBe(false);
    expect(check(rule, { authorId: 'bob' }, user(['ADMIN'], [], { username: 'root' }))).toBe(true);
    expect(check(rule, {})).toBe(false);
    expect(check(rule, undefined)).toBe(false);
  });

  it('fails every principal comparison for the anonymous user, even with missing args', () => {
    expect(check(rule, {}, null)).toBe(false);
    expect(check(rule, { authorId: undefined }, null)).toBe(false);
    expect(check('args.authorId != principal.username', {}, null)).toBe(false);
    expect(check("principal.username != 'bob'", {}, null)).toBe(false);
    expect(check('principal.attributes.x == args.y', {}, null)).toBe(false);
    expect(check("not principal.username == 'bob'", {}, null)).toBe(true);
  });

  it('compares with args nested paths and array indexes', () => {
    expect(check('args.post.authorId == principal.username', { post: { authorId: 'alice' } })).toBe(
      true,
    );
    expect(check("args.items.0 == 'a' and args.items.1 == 'b'", { items: ['a', 'b'] })).toBe(true);
    expect(check("args.items.2 == 'c'", { items: ['a', 'b'] })).toBe(false);
    expect(check("args.items.01 == 'b'", { items: ['a', 'b'] })).toBe(false);
    expect(check('args.items.length == 2', { items: ['a', 'b'] })).toBe(false);
    expect(check('args.0.id == 1', [{ id: 1 }])).toBe(true);
  });

  it('reads principal fields and attributes', () => {
    expect(check("principal.authenticationMethod == 'basic'", {})).toBe(true);
    expect(check('principal.attributes.tenant == args.tenant', { tenant: 'acme' })).toBe(true);
    expect(check('principal.attributes.tenant == args.tenant', { tenant: 'evil' })).toBe(false);
    expect(check('principal.attributes.level == 3', {})).toBe(true);
    expect(check('principal.attributes.org.id == args.org', { org: 7 })).toBe(true);
    expect(check("principal.attributes.org.tags.1 == 'b'", {})).toBe(true);
    expect(check('principal.attributes.nothing == null', {})).toBe(true);
    expect(check('principal.attributes.missing == null', {})).toBe(false);
    expect(check('principal.attributes.constructor == args.x', {})).toBe(true);
    expect(check("principal.attributes.__proto__ == 'x'", {})).toBe(false);
  });
});

describe('equality', () => {
  it.each([
    ["args.v == 'x'", { v: 'x' }, true],
    ['args.v == 1', { v: 1 }, true],
    ['args.v == 1.0', { v: 1 }, true],
    ["args.v == '1'", { v: 1 }, false],
    ['args.v == 1', { v: '1' }, false],
    ['args.v == true', { v: true }, true],
    ["args.v == 'true'", { v: true }, false],
    ['args.v == null', { v: null }, true],
    ['args.v == null', {}, false],
    ['args.v == false', { v: 0 }, false],
    ['args.v == 0', { v: -0 }, true],
    ['args.v == args.w', { v: 'x', w: 'x' }, true],
    ['args.v == args.w', { v: 'x', w: 'y' }, false],
    // Missing paths equal only each other.
    ['args.v == args.w', {}, true],
    ['args.v.deep == args.w', { v: 'x' }, true],
    ['args.v == args.w', { v: 'x' }, false],
    ['args.v != args.w', {}, false],
    ['args.v != args.w', { v: null }, true],
    ["args.v != 'x'", {}, true],
    ['args.v == null', { v: undefined }, false],
    // Objects, arrays, NaN, bigints, symbols equal nothing, themselves included.
    ['args.v == args.v', { v: {} }, false],
    ['args.v == args.v', { v: [] }, false],
    ['args.v != args.v', { v: {} }, true],
    ['args.v == args.v', { v: Number.NaN }, false],
    ['args.v == args.w', { v: 1n, w: 1n }, false],
    ['args.v == 1', { v: 1n }, false],
  ])('%s with %o is %s', (text, args, expected) => {
    expect(check(text, args)).toBe(expected);
  });

  it('compares literals with literals', () => {
    expect(check("'a' == 'a'", {})).toBe(true);
    expect(check('null == null', {})).toBe(true);
    expect(check('1 != 2', {})).toBe(true);
    expect(check("'1' == 1", {})).toBe(false);
    expect(check("'x' == args.v", { v: 'x' })).toBe(true);
  });

  it('walks into values that are not containers as missing', () => {
    const symbol = Symbol('s');
    expect(check('args.v.length == 5', { v: 'hello' })).toBe(false);
    expect(check('args.v.x == args.w', { v: 5 })).toBe(true);
    expect(check('args.v == args.w', { v: symbol, w: symbol })).toBe(false);
    expect(check("args.x == 'y'", 'not an object')).toBe(false);
    expect(check("args.x == 'y'", null)).toBe(false);
  });
});

describe('nothing reaches a prototype, a getter or a proxy trap', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'])(
    'args.%s is a plain missing key',
    (key) => {
      expect(check(`args.${key} == args.missing`, {})).toBe(true);
      expect(check(`args.${key} != args.missing`, {})).toBe(false);
      expect(check(`args.${key} == null`, {})).toBe(false);
      expect(check(`args.${key}.name == 'Object'`, {})).toBe(false);
      expect(check(`args.a.${key}.name == 'Array'`, { a: [] })).toBe(false);
    },
  );

  it('reads a real own data property named __proto__ (as JSON.parse makes)', () => {
    const parsed: unknown = JSON.parse('{"__proto__": {"admin": "yes"}, "constructor": "c"}');
    expect(check("args.__proto__.admin == 'yes'", parsed)).toBe(true);
    expect(check("args.constructor == 'c'", parsed)).toBe(true);
  });

  it('never reads inherited properties, even from a polluted-looking prototype', () => {
    const inherited = Object.create({ role: 'ADMIN' }) as object;
    expect(check("args.role == 'ADMIN'", inherited)).toBe(false);
    expect(check("args.x.role == 'ADMIN'", { x: inherited })).toBe(false);
  });

  it('never invokes a getter', () => {
    const get = vi.fn(() => 'alice');
    const args = {};
    Object.defineProperty(args, 'authorId', { get, enumerable: true });
    expect(check('args.authorId == principal.username', args)).toBe(false);
    class Post {
      get authorId(): string {
        return get();
      }
    }
    expect(check('args.post.authorId == principal.username', { post: new Post() })).toBe(false);
    const bare = Object.create(null) as object;
    Object.defineProperty(bare, 'authorId', { get, enumerable: true });
    expect(check('args.p.authorId == principal.username', { p: bare })).toBe(false);
    expect(get).not.toHaveBeenCalled();
  });

  it('reads a setter-only property as missing without calling the setter', () => {
    const set = vi.fn();
    const args = {};
    Object.defineProperty(args, 'x', { set, enumerable: true });
    expect(check('args.x == args.missing', args)).toBe(true);
    expect(check('args.x == null', args)).toBe(false);
    expect(set).not.toHaveBeenCalled();
  });

  it('never calls a proxy trap', () => {
    const trap = vi.fn(() => {
      throw new Error('trap');
    });
    const proxy = new Proxy(
      { id: 'alice' },
      { get: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap, has: trap, ownKeys: trap },
    );
    expect(check('args.id == principal.username', proxy)).toBe(false);
    expect(check('args.p.id == principal.username', { p: proxy })).toBe(false);
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    expect(check('args.x == args.y', revocable.proxy)).toBe(true);
    expect(trap).not.toHaveBeenCalled();
  });

  it('treats class instances, maps and non-enumerable properties as opaque', () => {
    expect(check("args.m.x == 'y'", { m: new Map([['x', 'y']]) })).toBe(false);
    expect(check('args.d.x == args.missing', { d: new Date() })).toBe(true);
    const hidden = {};
    Object.defineProperty(hidden, 'x', { value: 'y', enumerable: false });
    expect(check("args.x == 'y'", hidden)).toBe(false);
    const nullPrototype = Object.assign(Object.create(null) as object, { x: 'y' });
    expect(check("args.x == 'y'", nullPrototype)).toBe(true);
  });

  it('never throws, whatever the args', () => {
    const rule = compileExpression("args.a.b.c == 'x' or args.z == null");
    for (const args of [undefined, null, 0, '', [], {}, { a: null }, { a: { b: 1 } }, () => 1]) {
      expect(rule.evaluate(alice, args)).toBe(false);
    }
  });
});

describe('usesArgs', () => {
  it('tells whether the expression reads args', () => {
    expect(compileExpression("hasRole('a')").usesArgs).toBe(false);
    expect(compileExpression("principal.username == 'a'").usesArgs).toBe(false);
    expect(compileExpression("hasRole('a') or not args.x == 1").usesArgs).toBe(true);
    expect(compileExpression("true and (false or 'a' == args.b)").usesArgs).toBe(true);
  });
});
