import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  SecurityEvents,
  type AuthenticatedUser,
  type ExpressionErrorEvent,
} from '../../src/core/index.js';
import { compileExpression } from '../../src/expression/index.js';
import { user } from './helpers.js';

const alice = user(['USER'], [], { username: 'alice' });
const admin = user(['ADMIN'], [], { username: 'root' });

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

describe('asynchronous custom functions', () => {
  const isOwner = vi.fn((who: AuthenticatedUser | null, id: unknown) =>
    Promise.resolve(who?.username === 'alice' && id === 1),
  );

  afterEach(() => {
    isOwner.mockClear();
  });

  const compile = (text: string, extra: { events?: SecurityEvents } = {}) =>
    compileExpression(text, {
      functions: {
        isOwner: { params: ['reference'], async: true, call: isOwner },
        sync: { params: [], call: () => true },
      },
      ...extra,
    });

  it('make the expression asynchronous only when one is called', async () => {
    const rule = compile("hasRole('ADMIN') or isOwner(args.id)");
    expect(rule.async).toBe(true);
    const result = rule.evaluate(alice, { id: 1 });
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toBe(true);
    expect(await rule.evaluate(alice, { id: 2 })).toBe(false);
    expect(await rule.evaluate(null, { id: 1 })).toBe(false);

    const plain = compile("hasRole('ADMIN') or sync()");
    expect(plain.async).toBe(false);
    expect(plain.evaluate(alice)).toBe(true);
    expect(compile("hasRole('ADMIN')").async).toBe(false);
  });

  it('short-circuit: an admin never triggers the ownership lookup', async () => {
    const rule = compile("hasRole('ADMIN') or isOwner(args.id)");
    expect(await rule.evaluate(admin, { id: 1 })).toBe(true);
    expect(isOwner).not.toHaveBeenCalled();
    expect(await compile('denyAll() and isOwner(args.id)').evaluate(alice, { id: 1 })).toBe(false);
    expect(isOwner).not.toHaveBeenCalled();
    expect(await rule.evaluate(alice, { id: 1 })).toBe(true);
    expect(isOwner).toHaveBeenCalledOnce();
  });

  it('short-circuit after an awaited operand, left to right', async () => {
    const order: string[] = [];
    const fn = (name: string, result: boolean) => ({
      params: [] as const,
      async: true as const,
      call: async () => {
        order.push(name);
        await new Promise((resolve) => setTimeout(resolve, 1));
        return result;
      },
    });
    const rule = compileExpression('no() and yes() or yes2() or yes3()', {
      functions: {
        no: fn('no', false),
        yes: fn('yes', true),
        yes2: fn('yes2', true),
        yes3: fn('yes3', true),
      },
    });
    expect(await rule.evaluate(alice)).toBe(true);
    expect(order).toEqual(['no', 'yes2']);
  });

  it('may answer synchronously and still give a promise', async () => {
    const rule = compileExpression('quick()', {
      functions: { quick: { params: [], async: true, call: () => true } },
    });
    expect(rule.async).toBe(true);
    expect(await rule.evaluate(alice)).toBe(true);
  });

  it.each<[string, () => unknown, string]>([
    ['rejects', () => Promise.reject(new OwnershipLookupError('x')), 'OwnershipLookupError'],
    [
      'throws',
      () => {
        throw new TypeError('x');
      },
      'TypeError',
    ],
    ['resolves to a non-boolean', () => Promise.resolve('yes'), 'NonBooleanResult'],
    ['returns a non-boolean', () => 1, 'NonBooleanResult'],
    [
      'returns a thenable that throws',
      () => ({
        then: () => {
          throw new RangeError('x');
        },
      }),
      'RangeError',
    ],
  ])('one that %s denies, also under not, and reports', async (_name, call, error) => {
    const { events, seen } = recorder();
    const rule = compileExpression('not check() or not check()', {
      functions: {
        check: { params: [], async: true, call: call as unknown as () => Promise<boolean> },
      },
      events,
    });
    await expect(rule.evaluate(alice)).resolves.toBe(false);
    expect(seen.map((e) => e.error)).toEqual([error]);
  });

  it('a failure after another operand already waited still denies', async () => {
    const rule = compileExpression('slowTrue() and not failing()', {
      functions: {
        slowTrue: { params: [], async: true, call: () => Promise.resolve(true) },
        failing: { params: [], async: true, call: () => Promise.reject(new Error('x')) },
      },
      events: new SecurityEvents(),
    });
    await expect(rule.evaluate(alice)).resolves.toBe(false);
  });
});

describe('regression: async expressions that decide without calling their function', () => {
  const asPromise = (value: boolean | Promise<boolean>): Promise<boolean> => {
    expect(value).toBeInstanceOf(Promise);
    return value as Promise<boolean>;
  };

  it('answer promises that can be awaited after AsyncLocalStorage turned promise hooks on', async () => {
    const { SecurityContext } = await import('../../src/index.js');
    SecurityContext.run(null, () => undefined);
    const functions = {
      slow: { params: [], async: true, call: () => Promise.resolve(true) },
    } as const;
    const either = compileExpression('permitAll or slow()', { functions });
    const both = compileExpression('denyAll() and slow()', { functions });
    const first = asPromise(either.evaluate(null));
    expect(Object.isFrozen(first)).toBe(false);
    expect(await first).toBe(true);
    expect(await asPromise(both.evaluate(null))).toBe(false);
    const inContext = SecurityContext.run(null, () =>
      asPromise(either.evaluate(null)).then((ok) => ok),
    );
    expect(await inContext).toBe(true);
  });
});
