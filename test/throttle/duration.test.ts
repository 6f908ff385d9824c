import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { durationMs } from '../../src/throttle/duration.js';

describe('durationMs', () => {
  it('reads seconds as a number and a whole number with a unit as a string', () => {
    const cases: [unknown, number][] = [
      [900, 900_000],
      [1, 1_000],
      [0.5, 500],
      [0.001, 1],
      ['500ms', 500],
      ['1ms', 1],
      ['30s', 30_000],
      ['15m', 900_000],
      ['1h', 3_600_000],
      ['2d', 172_800_000],
      ['366d', 366 * 86_400_000],
      ['0015m', 900_000],
    ];
    for (const [value, ms] of cases) expect(durationMs('window', value), String(value)).toBe(ms);
  });

  it('refuses anything else with a ConfigurationError naming the option', () => {
    const bad: unknown[] = [
      0,
      -1,
      0.0001,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      367 * 86_400,
      '0s',
      '367d',
      '1.5m',
      '-1m',
      '15',
      '15 m',
      ' 15m',
      '15m ',
      '15M',
      '15min',
      '1w',
      '',
      'm',
      '1e3ms',
      '9999999999ms',
      '900',
      null,
      undefined,
      true,
      900n,
      { ms: 900 },
      [900],
    ];
    for (const value of bad) {
      let thrown: unknown;
      try {
        durationMs('username.window', value);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, String(value)).toBeInstanceOf(ConfigurationError);
      expect((thrown as ConfigurationError).option).toBe('username.window');
      expect((thrown as ConfigurationError).code).toBe('ERR_INVALID_OPTION');
    }
  });
});
