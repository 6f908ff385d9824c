/** A fixed instant for the clocks of the tests (2030-01-01T12:00:00Z). */
export const NOW = Date.UTC(2030, 0, 1, 12);

/** A clock the test moves by hand. */
export interface TestClock {
  readonly now: () => number;
  advance(ms: number): void;
  set(ms: number): void;
}

/** A manual clock starting at {@link NOW}. */
export function testClock(start = NOW): TestClock {
  let now = start;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    set: (ms) => {
      now = ms;
    },
  };
}
