import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  SecurityEvents,
  securityEvents,
  type AuthenticatedUser,
  type ExpressionErrorEvent,
} from '../../src/core/index.js';
import { compileExpression, parseExpression } from '../../src/expression/index.js';
import { syntaxError, thrown, user } from './helpers.js';

const alice = user(['USER'], [], { username: 'alice' });

/** A SecurityEvents publisher and the expression-error events it received. */
function recorder(): { events: SecurityEvents; seen: ExpressionErrorEvent[] } {
  const events = new SecurityEvents();
  const seen: ExpressionErrorEvent[] = [];
  events.on('expression-error', (event) => {
    seen.push(event);
  });
  return { events, seen };
}

class OwnershipLookupError extends Error {
  override name = 'OwnershipLookupError';
}

describe('synchronous custom functions', () => {
  it('receive the user and the resolved arguments, and decide', () => {
    const call = vi.fn(
      (who: AuthenticatedUser | null, id: unknown, type: string, permission: string) =>
        who?.username === 'alice' && id === 7 && type === 'post' && permission === 'write',
    );
    const rule = compileExpression("hasPermission(args.id, 'post', 'write')", {
      functions: { hasPermission: { params: ['reference', 'string', 'string'], call } },
    });
    expect(rule.async).toBe(false);
    if (rule.async) return;
    expect(rule.evaluate(alice, { id: 7 })).toBe(true);
    expect(rule.evaluate(alice, { id: 8 })).toBe(false);
    expect(rule.evaluate(null, { id: 7 })).toBe(false);
    expect(call).toHaveBeenCalledWith(alice, 7, 'post', 'write');
    expect(call).toHaveBeenCalledWith(null, 7, 'post', 'write');
    expect(call.mock.contexts[0]).toBeUndefined();
  });

  it('pass missing references as undefined and principal references resolved', () => {
    const call = vi.fn((_who: AuthenticatedUser | null, a: unknown, b: unknown) => a === b);
    const rule = compileExpression('same(args.missing, principal.username)', {
      functions: { same: { params: ['value', 'value'], call } },
    });
    expect(rule.evaluate(alice, {})).toBe(false);
    expect(rule.evaluate(null, {})).toBe(true);
    expect(call).toHaveBeenLastCalledWith(null, undefined, undefined);
  });

  it('take string literals for value parameters too, and any arity', () => {
    const call = vi.fn(() => true);
    const rule = compileExpression("five('a', args.b, 'c', args.d, 'e') and none()", {
      functions: {
        five: { params: ['value', 'value', 'string', 'reference', 'value'], call },
        none: { params: [], call: () => true },
      },
    });
    expect(rule.evaluate(alice, { b: 1, d: 2 })).toBe(true);
    expect(call).toHaveBeenCalledWith(alice, 'a', 1, 'c', 2, 'e');
  });

  it('check argument kinds and counts at compile time', () => {
    const functions = {
      owner: { params: ['reference'], call: () => true },
      kind: { params: ['string'], call: () => true },
    } as const;
    const cases: [string, string, number][] = [
      ["owner('x')", 'ERR_EXPRESSION_ARGUMENT_TYPE', 7],
      ['kind(args.x)', 'ERR_EXPRESSION_ARGUMENT_TYPE', 6],
      ['owner(1)', 'ERR_EXPRESSION_ARGUMENT_TYPE', 7],
      ['owner()', 'ERR_EXPRESSION_ARGUMENT_COUNT', 7],
      ['owner(args.a, args.b)', 'ERR_EXPRESSION_ARGUMENT_COUNT', 15],
      ['ownr(args.a)', 'ERR_EXPRESSION_UNKNOWN_FUNCTION', 1],
      ['owner', 'ERR_EXPRESSION_UNKNOWN_REFERENCE', 1],
    ];
    for (const [text, code, column] of cases) {
      const error = syntaxError(() => parseExpression(text, { functions }));
      expect([text, error.code, error.column]).toEqual([text, code, column]);
    }
    expect(syntaxError(() => parseExpression('ownr(args.a)', { functions })).message).toContain(
      '"owner"',
    );
    expect(syntaxError(() => parseExpression('owner(args.a)')).code).toBe(
      'ERR_EXPRESSION_UNKNOWN_FUNCTION',
    );
  });

  it('are copied at compile time: later changes to the options have no effect', () => {
    const functions = { gate: { params: [] as const, call: () => true } };
    const rule = compileExpression('gate()', { functions });
    (functions.gate as { call: () => boolean }).call = () => false;
    expect(rule.evaluate(alice)).toBe(true);
  });
});

describe('a failing custom function denies the whole expression', () => {
  const throwing = vi.fn((): boolean => {
    throw new OwnershipLookupError('db down: password=hunter2');
  });

  afterEach(() => {
    throwing.mockClear();
  });

  it.each([
    ['isOwner(args.id)'],
    ['not isOwner(args.id)'],
    ['not not not isOwner(args.id)'],
    ['isOwner(args.id) or permitAll'],
    ['not (isOwner(args.id) and true)'],
    ["isOwner(args.id) or hasRole('USER')"],
  ])('%s when isOwner throws: denied, reported by name only', (text) => {
    const { events, seen } = recorder();
    const rule = compileExpression(text, {
      functions: { isOwner: { params: ['reference'], call: throwing } },
      events,
    });
    if (rule.async) throw new Error('expected a synchronous expression');
    expect(rule.evaluate(alice, { id: 1 })).toBe(false);
    expect(seen).toEqual([
      {
        type: 'expression-error',
        expression: rule.source,
        function: 'isOwner',
        error: 'OwnershipLookupError',
      },
    ]);
    expect(JSON.stringify(seen)).not.toContain('hunter2');
  });

  it.each<[string, unknown]>([
    ['a number', 1],
    ['a string', 'true'],
    ['undefined', undefined],
    ['null', null],
    ['an object', { valueOf: () => true }],
  ])('a synchronous function returning %s denies, also under not', (_name, result) => {
    const { events, seen } = recorder();
    const rule = compileExpression('not weird()', {
      functions: { weird: { params: [], call: () => result as boolean } },
      events,
    });
    expect(rule.evaluate(alice)).toBe(false);
    expect(seen.map((e) => e.error)).toEqual(['NonBooleanResult']);
  });

  it('a synchronous function returning a promise denies (and its rejection is swallowed)', async () => {
    const { events, seen } = recorder();
    const rule = compileExpression('not sneaky()', {
      functions: {
        sneaky: {
          params: [],
          call: (() => Promise.reject(new Error('late'))) as unknown as () => boolean,
        },
      },
      events,
    });
    expect(rule.async).toBe(false);
    expect(rule.evaluate(alice)).toBe(false);
    expect(seen.map((e) => e.error)).toEqual(['UnexpectedPromise']);
    await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it('reports a thrown non-error by its type', () => {
    const { events, seen } = recorder();
    const rule = compileExpression('odd()', {
      functions: {
        odd: {
          params: [],
          call: () => {
            // eslint-disable-next-line @typescript-eslint/only-throw-error
            throw 'a string with a secret';
          },
        },
      },
      events,
    });
    expect(rule.evaluate(alice)).toBe(false);
    expect(seen.map((e) => e.error)).toEqual(['string']);
  });

  it('publishes to securityEvents by default; a throwing listener is harmless', () => {
    const seen: ExpressionErrorEvent[] = [];
    const off = securityEvents.on('expression-error', (event) => {
      seen.push(event);
    });
    const offThrowing = securityEvents.on('expression-error', () => {
      throw new Error('listener bug');
    });
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const rule = compileExpression('isOwner(args.id)', {
        functions: { isOwner: { params: ['reference'], call: throwing } },
      });
      expect(rule.evaluate(alice, { id: 1 })).toBe(false);
      expect(seen).toHaveLength(1);
      expect(warnings).toHaveBeenCalledOnce();
    } finally {
      off();
      offThrowing();
      warnings.mockRestore();
    }
  });

  it('a broken publisher cannot turn the denial into a throw', () => {
    const events = {
      publish: () => {
        throw new Error('broken');
      },
    } as unknown as SecurityEvents;
    const rule = compileExpression('not isOwner(args.id)', {
      functions: { isOwner: { params: ['reference'], call: throwing } },
      events,
    });
    expect(rule.evaluate(alice, {})).toBe(false);
  });

  it('evaluate never throws, even for a malformed user object', () => {
    const rule = compileExpression("hasRole('x') or not hasAuthority('y')");
    const malformed = {} as unknown as AuthenticatedUser;
    expect(rule.evaluate(malformed)).toBe(false);
    expect(compileExpression("not hasRole('x')").evaluate(malformed)).toBe(false);
  });
});

describe('the functions option', () => {
  it.each<[string, unknown]>([
    ['functions.has-role', { 'has-role': { params: [], call: () => true } }],
    ['functions.hasRole', { hasRole: { params: [], call: () => true } }],
    ['functions.permitAll', { permitAll: { params: [], call: () => true } }],
    ['functions.principal', { principal: { params: [], call: () => true } }],
    ['functions.args', { args: { params: [], call: () => true } }],
    ['functions.AND', { AND: { params: [], call: () => true } }],
    ['functions.null', { null: { params: [], call: () => true } }],
    ['functions.f', { f: null }],
    ['functions.f.params', { f: { params: ['number'], call: () => true } }],
    ['functions.f.params', { f: { params: 'string', call: () => true } }],
    ['functions.f.call', { f: { params: [] } }],
    ['functions.f.async', { f: { params: [], call: () => true, async: 'yes' } }],
    ['functions', []],
    ['events', {}],
  ])('refuses %s', (option, functions) => {
    const options = option === 'events' ? { events: functions } : { functions };
    const error = thrown(() => compileExpression('true', options as never));
    expect([error.code, error.option]).toEqual(['ERR_INVALID_OPTION', option]);
  });
});
