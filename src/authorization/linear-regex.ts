/**
 * A quick, conservative proof that a URL-rule regex cannot backtrack
 * catastrophically, so that the common rules (`/admin/.*`, `/users/[0-9]+`,
 * `/login|/assets/.*`) skip the ReDoS analyser. It only ever answers "linear"
 * for a regex it fully understands; anything else goes to the analyser.
 *
 * The argument: a backtracking matcher anchored at the start (`^(?:…)$`) does
 * work linear in the path for a sequence that has at most one loop whose exit
 * is ambiguous, the other loops each followed by a literal character the loop
 * cannot match (`[0-9]+/`: only one exit can continue) and placed before it,
 * times a constant for optional parts and loop-free alternations (capped).
 *
 * @internal
 */

/** One element of a parsed sequence. */
interface Item {
  /** `char`: one literal character; `set`: a class, `.` or a class escape; `group`; `assert`. */
  readonly kind: 'char' | 'set' | 'group' | 'assert';
  /** The element's source text (for `char` and `set`). */
  readonly text: string;
  /** The character a `char` stands for. */
  readonly value?: string;
  /** The alternatives of a group. */
  readonly alternatives?: readonly Item[][];
  /** The quantifier: minimum and maximum repetitions, `undefined` for none. */
  readonly quantifier?: { readonly min: number; readonly max: number };
}

/** The largest constant factor (optional parts × alternatives) accepted without the analyser. */
const MAX_FACTOR = 64;

/** Escapes that stand for a class of characters. */
const CLASS_ESCAPES = new Set('dDwWsS');
/** Escapes that stand for one control character. */
const CONTROL_ESCAPES: Readonly<Record<string, string>> = {
  t: '\t',
  n: '\n',
  r: '\r',
  f: '\f',
  v: '\v',
  '0': '\0',
};

class Unsupported extends Error {}

/**
 * Whether `source` (compiled with `flags`) is proven to match in linear time by a
 * backtracking engine; `false` means "not proven", not "vulnerable".
 *
 * @internal
 */
export function isProvablyLinear(source: string, flags: string): boolean {
  let alternatives: Item[][];
  try {
    const parser = new Parser(source, flags.includes('v'));
    alternatives = parser.alternatives();
    if (!parser.done()) return false;
  } catch (error) {
    if (error instanceof Unsupported) return false;
    throw error;
  }
  // Top-level alternatives are tried one after the other: their costs add up.
  return alternatives.every((sequence) => sequenceFactor(sequence, flags) !== undefined);
}

/** The constant factor of a sequence, or `undefined` when it is not proven linear. */
function sequenceFactor(sequence: readonly Item[], flags: string): number | undefined {
  const flat = flatten(sequence);
  if (flat === undefined) return undefined;
  let factor = 1;
  let ambiguousLoop = false;
  for (let i = 0; i < flat.length; i++) {
    const { item, optionalEnd } = flat[i] as Flat;
    const quantifier = item.quantifier;
    if (item.kind === 'group') {
      // Only loop-free alternations reach here (flatten splices the rest).
      let inner = 0;
      for (const alternative of item.alternatives ?? []) {
        const f = loopFreeFactor(alternative);
        if (f === undefined) return undefined;
        inner += f;
      }
      factor *= inner + (quantifier?.min === 0 ? 1 : 0);
    } else if (quantifier !== undefined && quantifier.max > 1) {
      const next = optionalEnd ? undefined : flat[i + 1]?.item;
      if (ambiguousLoop || !guards(item, next, flags)) {
        if (ambiguousLoop) return undefined;
        ambiguousLoop = true;
      }
    } else if (quantifier?.min === 0) {
      factor *= 2;
    }
    if (factor > MAX_FACTOR) return undefined;
  }
  return factor;
}

interface Flat {
  readonly item: Item;
  /** Whether the item ends an optional part (what follows it is not certain). */
  readonly optionalEnd: boolean;
}

/**
 * The sequence with single-alternative groups spliced in (an optional one
 * counted by a marker item); `undefined` when a group is repeated.
 */
function flatten(sequence: readonly Item[]): Flat[] | undefined {
  const out: Flat[] = [];
  for (const item of sequence) {
    if (item.kind !== 'group') {
      out.push({ item, optionalEnd: false });
      continue;
    }
    const { quantifier } = item;
    if (quantifier !== undefined && quantifier.max > 1) return undefined;
    const alternatives = item.alternatives ?? [];
    if (alternatives.length > 1) {
      out.push({ item, optionalEnd: false });
      continue;
    }
    const inner = flatten(alternatives[0] ?? []);
    if (inner === undefined) return undefined;
    if (quantifier?.min === 0) {
      // An optional part: a factor of 2, and its last item is followed by either
      // what follows the group or what precedes it.
      out.push({
        item: { kind: 'assert', text: '', quantifier: { min: 0, max: 1 } },
        optionalEnd: false,
      });
      const last = inner.pop();
      out.push(...inner);
      if (last !== undefined) out.push({ item: last.item, optionalEnd: true });
    } else {
      out.push(...inner);
    }
  }
  return out;
}

/** The number of ways a loop-free sequence can match, or `undefined` when it loops. */
function loopFreeFactor(sequence: readonly Item[]): number | undefined {
  let factor = 1;
  for (const item of sequence) {
    const { quantifier } = item;
    if (quantifier !== undefined && quantifier.max > 1) return undefined;
    let ways = 1;
    if (item.kind === 'group') {
      ways = 0;
      for (const alternative of item.alternatives ?? []) {
        const f = loopFreeFactor(alternative);
        if (f === undefined) return undefined;
        ways += f;
      }
    }
    factor *= ways + (quantifier?.min === 0 ? 1 : 0);
    if (factor > MAX_FACTOR) return undefined;
  }
  return factor;
}

/**
 * Whether a loop over `item` is followed by a literal character it cannot match
 * (so only one exit of the loop can continue).
 */
function guards(item: Item, next: Item | undefined, flags: string): boolean {
  if (next?.kind !== 'char' || next.value === undefined) return false;
  if (next.quantifier !== undefined && next.quantifier.min === 0) return false;
  const char = next.value;
  // Under `i` a letter also stands for its case variants (and ſ, K): skip letters.
  if (flags.includes('i') && (char.toLowerCase() !== char.toUpperCase() || char > '\x7f')) {
    return false;
  }
  return !new RegExp(`^(?:${item.text})$`, flags.replaceAll(/[gmy]/gu, '')).test(char);
}

/** A recursive-descent reader of the regex syntax the fast path understands. */
class Parser {
  readonly #source: string;
  readonly #sets: boolean;
  #at = 0;

  constructor(source: string, unicodeSets: boolean) {
    this.#source = source;
    this.#sets = unicodeSets;
  }

  done(): boolean {
    return this.#at >= this.#source.length;
  }

  alternatives(): Item[][] {
    const alternatives: Item[][] = [this.#sequence()];
    while (this.#source[this.#at] === '|') {
      this.#at++;
      alternatives.push(this.#sequence());
    }
    return alternatives;
  }

  #sequence(): Item[] {
    const items: Item[] = [];
    for (;;) {
      const char = this.#source[this.#at];
      if (char === undefined || char === '|' || char === ')') return items;
      const atom = this.#atom();
      const quantifier = this.#quantifier();
      if (quantifier !== undefined && atom.kind === 'assert') throw new Unsupported();
      items.push(quantifier === undefined ? atom : { ...atom, quantifier });
    }
  }

  #atom(): Item {
    const source = this.#source;
    const start = this.#at;
    const char = source.charAt(start);
    switch (char) {
      case '(': {
        this.#at++;
        if (source.startsWith('?:', this.#at)) this.#at += 2;
        else if (source.startsWith('?<', this.#at) && !/^\?<[=!]/u.test(source.slice(this.#at))) {
          const close = source.indexOf('>', this.#at);
          if (close < 0) throw new Unsupported();
          this.#at = close + 1;
        } else if (source[this.#at] === '?') {
          throw new Unsupported(); // lookaround or modifiers
        }
        const alternatives = this.alternatives();
        if (source[this.#at] !== ')') throw new Unsupported();
        this.#at++;
        return { kind: 'group', text: source.slice(start, this.#at), alternatives };
      }
      case '[':
        this.#class();
        return { kind: 'set', text: source.slice(start, this.#at) };
      case '.':
        this.#at++;
        return { kind: 'set', text: '.' };
      case '^':
      case '$':
        this.#at++;
        return { kind: 'assert', text: char };
      case '\\':
        return this.#escape();
      case '*':
      case '+':
      case '?':
      case '{':
      case '}':
      case ']':
        throw new Unsupported();
      default: {
        const code = source.codePointAt(start) ?? 0;
        this.#at += code > 0xffff ? 2 : 1;
        const value = source.slice(start, this.#at);
        return { kind: 'char', text: value, value };
      }
    }
  }

  #escape(): Item {
    const source = this.#source;
    const start = this.#at;
    const next = source.charAt(start + 1);
    this.#at += 2;
    if (CLASS_ESCAPES.has(next)) return { kind: 'set', text: source.slice(start, this.#at) };
    if (next === 'b' || next === 'B')
      return { kind: 'assert', text: source.slice(start, this.#at) };
    if (next === 'p' || next === 'P') {
      const close = source.indexOf('}', this.#at);
      if (source[this.#at] !== '{' || close < 0) throw new Unsupported();
      if (this.#sets && isStringProperty(source, start)) throw new Unsupported();
      this.#at = close + 1;
      return { kind: 'set', text: source.slice(start, this.#at) };
    }
    const control = CONTROL_ESCAPES[next];
    if (control !== undefined && !/[0-9]/u.test(source.charAt(this.#at))) {
      return { kind: 'char', text: source.slice(start, this.#at), value: control };
    }
    if (/^[\^$\\.*+?()[\]{}|/-]$/u.test(next)) {
      return { kind: 'char', text: source.slice(start, this.#at), value: next };
    }
    // Back-references, \k<name>, \u, \x, \c: left to the analyser.
    throw new Unsupported();
  }

  #class(): void {
    const source = this.#source;
    let depth = 0;
    while (this.#at < source.length) {
      const char = source[this.#at];
      if (char === '\\') {
        // In `v` mode, `\q{a|aa}` and properties of strings (`\p{RGI_Emoji}`) make a
        // class of strings: a loop over it is a loop over an alternation of different
        // lengths, which the argument above does not cover (`[\q{a|aa}]+` backtracks
        // exponentially).
        if (this.#sets && (source[this.#at + 1] === 'q' || isStringProperty(source, this.#at))) {
          throw new Unsupported();
        }
        this.#at += 2;
        continue;
      }
      this.#at++;
      if (char === '[' && (depth === 0 || this.#sets)) depth++;
      else if (char === ']' && --depth === 0) return;
    }
    throw new Unsupported();
  }

  #quantifier(): { min: number; max: number } | undefined {
    const source = this.#source;
    const char = source[this.#at];
    let quantifier: { min: number; max: number } | undefined;
    if (char === '*') quantifier = { min: 0, max: Number.POSITIVE_INFINITY };
    else if (char === '+') quantifier = { min: 1, max: Number.POSITIVE_INFINITY };
    else if (char === '?') quantifier = { min: 0, max: 1 };
    if (quantifier !== undefined) {
      this.#at++;
    } else if (char === '{') {
      const match = /^\{([0-9]+)(,([0-9]*))?\}/u.exec(source.slice(this.#at));
      if (!match) throw new Unsupported();
      this.#at += match[0].length;
      const min = Number(match[1]);
      const max =
        match[2] === undefined
          ? min
          : match[3] === ''
            ? Number.POSITIVE_INFINITY
            : Number(match[3]);
      quantifier = { min, max };
    } else {
      return undefined;
    }
    if (source[this.#at] === '?') this.#at++; // lazy
    if (quantifier.min === 1 && quantifier.max === 1) return undefined;
    return quantifier;
  }
}

/**
 * Whether the `\p{…}` at `at` names a property of strings (`v` mode only, e.g.
 * `RGI_Emoji`, which matches sequences of several code points). Such a property
 * cannot be negated: `\P{…}` of it is a syntax error.
 */
function isStringProperty(source: string, at: number): boolean {
  if (source[at + 1] !== 'p' || source[at + 2] !== '{') return false;
  const close = source.indexOf('}', at);
  if (close < 0) return false;
  try {
    new RegExp(`\\P${source.slice(at + 2, close + 1)}`, 'v');
    return false;
  } catch {
    return true;
  }
}
