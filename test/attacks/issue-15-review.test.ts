import { describe, expect, it } from 'vitest';
import { Access, AuthorizationManager } from '../../src/authorization/index.js';
import { isProvablyLinear } from '../../src/authorization/linear-regex.js';
import { thrown } from '../authorization/helpers.js';

/** Attacks on the secure-by-default code of issue 15, each once a hole. */

describe('the quick linear proof and v-mode string classes', () => {
  it('the attack: [\\q{a|aa}]+ (an alternation of different lengths in one class) is not proven linear', () => {
    // A v-mode class of strings is a loop over (?:aa|a): exponential backtracking, as
    // (a|aa)+ is. The proof counted it as one character class.
    const regex = new RegExp('^(?:/x[\\q{a|aa}]+)$', 'siv');
    const at = (n: number) => {
      const start = performance.now();
      regex.test(`/x${'a'.repeat(n)}!`);
      return performance.now() - start;
    };
    at(18); // warm-up
    expect(at(28)).toBeGreaterThan(Math.max(at(16), 0.05) * 8);
    expect(isProvablyLinear('/x[\\q{a|aa}]+', 'siv')).toBe(false);
    expect(isProvablyLinear('/x[\\q{a|aa}]+b', 'siv')).toBe(false);
    const error = thrown(() =>
      AuthorizationManager.requestMatcher().addMatcher(
        new RegExp('/x[\\q{a|aa}]+', 'v'),
        Access.permitAll(),
      ),
    );
    expect(error.code).toBe('ERR_INVALID_OPTION');
    expect(error.option).toBe('pattern');
  });

  it('a v-mode class without strings is still proven at once', () => {
    expect(isProvablyLinear('/x/[a-z]+/.*', 'siv')).toBe(true);
    expect(isProvablyLinear('/x/[[a-z]--[q]]+/.*', 'siv')).toBe(true);
  });
});
