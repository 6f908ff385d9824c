/**
 * The measuring part of the rate-limit benchmark (bench/rate-limit.ts): rows run in
 * interleaved rounds, one request at a time (synchronous or awaited) or many in
 * flight, each round checking how many requests were refused.
 */
import { TooManyRequestsError } from 'portcullis';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** Distinct users (and client addresses) the requests rotate over. */
export const KEYS = 1_000;
/** A limit nothing reaches during the run. */
export const NEVER = 1_000_000_000;

/** Requests in flight at once on the concurrent Redis rows. */
export const IN_FLIGHT = 50;
export const ROUNDS = 7;
export const MIN_ROUNDS = 3;
export type Library = 'floor' | 'portcullis' | 'rate-limiter-flexible';
export type Mode = 'sync' | 'await' | 'concurrent';
/** One request: the i-th of a round; throws (or rejects) when refused. */
export type Call = (i: number) => unknown;

/** Makes a rate-limiter-flexible limiter on the store under test. */
export type Flexible = (keyPrefix: string, points: number, duration: number) => RateLimiterAbstract;

export interface Variant {
  readonly label: string;
  readonly library: Library;
  readonly mode: Mode;
  /** The rows measured against each other (portcullis / rate-limiter-flexible) share it. */
  readonly pair?: string;
  /** Half of each key's requests refused in every round (a fresh limiter per round). */
  readonly halfRefused?: boolean;
  /** The pair's ratio is of their costs over the group's floor row, round by round. */
  readonly overFloor?: boolean;
  /** The call of a round (`round` −1: the warm-up). */
  readonly prepare: (round: number) => Call;
}

export interface Group {
  readonly title: string;
  /** Requests per row and round (on half-refused rows, an even multiple of the keys). */
  readonly iterations: number;
  /** No round starts past this (after {@link MIN_ROUNDS}), so the run stays bounded on a busy machine. */
  readonly budgetMs: number;
  readonly variants: readonly Variant[];
}

/** One row of the result: ns per request, one per round. */
export interface RateLimitRow {
  readonly group: string;
  readonly label: string;
  readonly library: Library;
  readonly halfRefused: boolean;
  readonly nanos: readonly number[];
  /** portcullis / rate-limiter-flexible, on the portcullis rows with a pair. */
  readonly ratio?: Ratio;
}

/**
 * portcullis / rate-limiter-flexible: the median and range of the rounds' ratios; or,
 * over the floor, the ratio of the medians of each one's cost over the floor row in
 * the same round (ns), a ratio of small differences being too noisy round by round.
 */
export interface Ratio {
  readonly median: number;
  readonly min?: number;
  readonly max?: number;
  readonly overFloor?: { readonly portcullis: number; readonly flexible: number };
}

const isRefusal = (error: unknown): boolean =>
  error instanceof TooManyRequestsError || error instanceof RateLimiterRes;

/** Runs a round of `iterations` requests: ns per request, and how many were refused. */
async function run(
  mode: Mode,
  call: Call,
  iterations: number,
): Promise<{ nanos: number; refused: number }> {
  let refused = 0;
  const refusal = (error: unknown): void => {
    if (!isRefusal(error)) throw error;
    refused++;
  };
  const start = process.hrtime.bigint();
  if (mode === 'sync') {
    for (let i = 0; i < iterations; i++) {
      try {
        call(i);
      } catch (error) {
        refusal(error);
      }
    }
  } else if (mode === 'await') {
    for (let i = 0; i < iterations; i++) {
      try {
        await call(i);
      } catch (error) {
        refusal(error);
      }
    }
  } else {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < iterations) {
        try {
          await call(next++);
        } catch (error) {
          refusal(error);
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  }
  return { nanos: Number(process.hrtime.bigint() - start) / iterations, refused };
}

/** Every variant of a group in each round, the order rotated round by round. */
export async function measure(group: Group): Promise<RateLimitRow[]> {
  const { variants, iterations } = group;
  const nanos = variants.map(() => [] as number[]);
  const deadline = Date.now() + group.budgetMs;
  for (let round = -1; round < ROUNDS; round++) {
    if (round >= MIN_ROUNDS && Date.now() > deadline) break;
    for (let k = 0; k < variants.length; k++) {
      const index = (k + Math.max(0, round)) % variants.length;
      const variant = variants[index]!;
      const result = await run(variant.mode, variant.prepare(round), iterations);
      const expected = variant.halfRefused === true ? iterations / 2 : 0;
      if (result.refused !== expected) {
        throw new Error(
          `${group.title}, ${variant.label}: ${result.refused} refused of ${iterations}, expected ${expected}`,
        );
      }
      if (round >= 0) nanos[index]!.push(result.nanos);
    }
  }
  return variants.map((variant, index) => {
    const pair = variants.findIndex(
      (other) => other.library === 'rate-limiter-flexible' && other.pair === variant.pair,
    );
    const ratio =
      variant.library !== 'portcullis' || pair < 0
        ? undefined
        : variant.overFloor === true
          ? overFloor(
              nanos[index]!,
              nanos[pair]!,
              nanos[variants.findIndex((v) => v.library === 'floor')]!,
            )
          : spread(nanos[index]!.map((n, round) => n / nanos[pair]![round]!));
    return {
      group: `${group.title} (${String(nanos[index]!.length)} rounds)`,
      label: variant.label,
      library: variant.library,
      halfRefused: variant.halfRefused ?? false,
      nanos: nanos[index]!,
      ...(ratio === undefined ? {} : { ratio }),
    };
  });
}

/** The median of `values`. */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[middle]!
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

const spread = (ratios: readonly number[]): Ratio => ({
  median: median(ratios),
  min: Math.min(...ratios),
  max: Math.max(...ratios),
});

function overFloor(
  portcullis: readonly number[],
  flexible: readonly number[],
  floor: readonly number[],
): Ratio {
  const over = (row: readonly number[]): number => median(row.map((n, round) => n - floor[round]!));
  const costs = { portcullis: over(portcullis), flexible: over(flexible) };
  return { median: costs.portcullis / costs.flexible, overFloor: costs };
}
