/** A seeded pseudo-random source (mulberry32): the same seed, the same requests. */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [0, max). */
  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** One of weighted choices: `[weight, value]` pairs. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((sum, [weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [weight, value] of choices) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return this.pick(choices)[1];
  }

  /** A string of `length` characters drawn from `alphabet`. */
  string(alphabet: string, length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet.charAt(this.int(alphabet.length));
    return out;
  }
}
