/**
 * A throttled attempt, and a refused password for an unknown user, must not tell
 * whether the user exists: the same answers, and the same work (repository lookups,
 * encoder calls) for a known and an unknown username.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS, type Answer, type Harness } from './basic-harness.js';

interface Trace {
  readonly answers: readonly Omit<Answer, 'body'>[];
  readonly bodies: readonly string[];
  /** Encoder `matches` calls and repository lookups after each answer. */
  readonly matches: readonly number[];
  readonly lookups: readonly number[];
}

describe.each(['node', 'fetch'] as const)('who exists stays unknown (%s)', (kind) => {
  const opened: Harness[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((h) => h.close()));
  });

  /** Seven wrong passwords for `username` on a fresh site, from one address. */
  const trace = async (username: string): Promise<Trace> => {
    const harness = await ADAPTERS[kind]();
    opened.push(harness);
    const { site, send } = harness;
    const answers: Omit<Answer, 'body'>[] = [];
    const bodies: string[] = [];
    const matches: number[] = [];
    const lookups: number[] = [];
    for (let i = 0; i < 7; i++) {
      const { body, ...answer } = await send(username, `guess-${i}`, '198.51.100.9');
      answers.push(answer);
      bodies.push(body);
      matches.push(site.encoder.matchesCalls);
      lookups.push(site.lookups());
    }
    return { answers, bodies, matches, lookups };
  };

  it('a known and an unknown username: the same statuses, bodies, Retry-After and the same calls', async () => {
    const known = await trace('alice');
    const unknown = await trace('mallory');
    expect(known.answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expect(unknown).toEqual(known);
    // The unknown user was checked against a dummy hash each time, like a wrong password.
    expect(unknown.matches).toEqual([1, 2, 3, 4, 5, 5, 5]);
    // A throttled attempt asks neither the repository nor the encoder.
    expect(unknown.lookups).toEqual([1, 2, 3, 4, 5, 5, 5]);
  });
});
