import { ConfigurationError } from '../core/errors.js';

/**
 * A span of time in a limiter's options: a number of seconds, or a string of a whole
 * number and a unit, `ms`, `s`, `m`, `h` or `d` (`'15m'`, `'1h'`, `'500ms'`).
 */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h' | 'd'}`;

/** Milliseconds per duration unit. @internal */
export const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
/** A duration string: a whole number and its unit. @internal */
export const DURATION = /^(\d{1,9})(ms|s|m|h|d)$/u;
/** No limiter window or delay is longer than a year. */
const MAX_MS = 366 * 86_400_000;

/** The milliseconds of a {@link Duration}, at least 1 ms and at most a year; a `ConfigurationError` naming `option` else. @internal */
export function durationMs(option: string, value: unknown): number {
  let ms: number | undefined;
  if (typeof value === 'number' && Number.isFinite(value)) ms = Math.round(value * 1_000);
  else if (typeof value === 'string') {
    const match = DURATION.exec(value);
    if (match !== null) ms = Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  }
  if (ms === undefined || ms < 1 || ms > MAX_MS) {
    throw new ConfigurationError(
      option,
      "must be a duration between 1 ms and a year: seconds as a number, or a string such as '15m', '1h', '30s', '500ms'",
    );
  }
  return ms;
}
