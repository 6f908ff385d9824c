import type { CompiledPattern } from './pattern.js';

/** What the index needs of a rule. */
export interface IndexedRule {
  readonly pattern: CompiledPattern;
  /** The methods the rule applies to; `undefined` for every method. */
  readonly methods: ReadonlySet<string> | undefined;
}

/** A node of a radix tree over rule prefixes. */
interface TrieNode {
  /** The characters from the parent to this node (lower-cased in the folded tree). */
  label: string;
  /** Children by the first character code of their label. */
  readonly children: Map<number, TrieNode>;
  /** Indexes (ascending) of the rules whose prefix ends at this node. */
  readonly rules: number[];
}

/**
 * Finds the first rule, in insertion order, whose pattern matches a path: the same
 * answer as a linear scan, without running the regular expression of rules that
 * cannot match. Regex rules and path-pattern rules (compiled to a regex whose
 * prefix is the literal text up to the first wildcard or variable) share the
 * index, so first-match-wins order holds across both.
 *
 * Each rule's literal prefix is stored in a radix tree (one for case-sensitive rules,
 * one, lower-cased, for case-insensitive ones). Walking the path through the tries
 * yields the few rules whose prefix the path starts with; their regular
 * expressions are tried in insertion order.
 *
 * The case-insensitive trie is walked with {@link foldCode}: under the `iu` flags
 * an ASCII letter also matches the two non-ASCII characters whose simple case
 * folding is ASCII, `ſ` (U+017F, matches `s`) and the Kelvin sign (U+212A,
 * matches `k`); a test checks every code point for this.
 *
 * @internal
 */
export class RuleIndex<R extends IndexedRule> {
  readonly #rules: R[] = [];
  readonly #exact: TrieNode = node('');
  readonly #folded: TrieNode = node('');
  #hasFolded = false;

  /** The number of rules. */
  get size(): number {
    return this.#rules.length;
  }

  /** Appends a rule (it matches after every rule added before it). */
  add(rule: R): void {
    const index = this.#rules.length;
    this.#rules.push(rule);
    const { ignoreCase, prefix } = rule.pattern;
    if (ignoreCase) this.#hasFolded = true;
    insert(ignoreCase ? this.#folded : this.#exact, prefix).rules.push(index);
  }

  /** The first rule that applies to `method` and whose pattern matches `path`. */
  find(path: string, method: string): R | undefined {
    const lists: number[][] = [];
    collect(this.#exact, path, false, lists);
    if (this.#hasFolded) collect(this.#folded, path, true, lists);
    if (lists.length === 1) {
      for (const index of lists[0] ?? []) {
        const rule = this.#rules[index];
        if (rule && applies(rule, path, method)) return rule;
      }
      return undefined;
    }
    return this.#merge(lists, path, method);
  }

  /** Tries the candidates of several ascending lists in ascending (insertion) order. */
  #merge(lists: readonly number[][], path: string, method: string): R | undefined {
    const positions = new Array<number>(lists.length).fill(0);
    for (;;) {
      let best = -1;
      let bestIndex = Number.POSITIVE_INFINITY;
      for (let j = 0; j < lists.length; j++) {
        const candidate = lists[j]?.[positions[j] ?? 0];
        if (candidate !== undefined && candidate < bestIndex) {
          bestIndex = candidate;
          best = j;
        }
      }
      if (best === -1) return undefined;
      positions[best] = (positions[best] ?? 0) + 1;
      const rule = this.#rules[bestIndex];
      if (rule && applies(rule, path, method)) return rule;
    }
  }
}

/**
 * The lower-case ASCII character code a character code matches under the `iu`
 * flags, or the code itself: A-Z fold to a-z, and the only two non-ASCII
 * characters whose simple case folding is ASCII, `ſ` (U+017F) and the Kelvin sign
 * (U+212A), to `s` and `k`.
 *
 * @internal
 */
export function foldCode(code: number): number {
  if (code >= 0x41 && code <= 0x5a) return code + 0x20;
  if (code === 0x17f) return 0x73;
  if (code === 0x212a) return 0x6b;
  return code;
}

function node(label: string): TrieNode {
  return { label, children: new Map(), rules: [] };
}

/** The node for `prefix`, created (and an edge split) when needed. */
function insert(root: TrieNode, prefix: string): TrieNode {
  let at = root;
  let i = 0;
  while (i < prefix.length) {
    const first = prefix.charCodeAt(i);
    let child = at.children.get(first);
    if (!child) {
      child = node(prefix.slice(i));
      at.children.set(first, child);
      return child;
    }
    const label = child.label;
    let common = 1;
    while (common < label.length && label[common] === prefix[i + common]) common++;
    if (common < label.length) {
      const middle = node(label.slice(0, common));
      child.label = label.slice(common);
      middle.children.set(child.label.charCodeAt(0), child);
      at.children.set(first, middle);
      child = middle;
    }
    at = child;
    i += common;
  }
  return at;
}

/** Appends the rule lists of every node whose prefix the path starts with. */
function collect(root: TrieNode, path: string, fold: boolean, lists: number[][]): void {
  let at = root;
  let i = 0;
  for (;;) {
    if (at.rules.length > 0) lists.push(at.rules);
    if (i >= path.length) return;
    const code = path.charCodeAt(i);
    const child = at.children.get(fold ? foldCode(code) : code);
    if (!child) return;
    const label = child.label;
    for (let j = 1; j < label.length; j++) {
      const next = path.charCodeAt(i + j);
      const expected = label.charCodeAt(j);
      // Most characters equal the label's as they are; only the others are folded.
      if (next !== expected && (!fold || foldCode(next) !== expected)) return;
    }
    i += label.length;
    at = child;
  }
}

function applies(rule: IndexedRule, path: string, method: string): boolean {
  const { pattern } = rule;
  return (
    (rule.methods === undefined || rule.methods.has(method)) &&
    pattern.regex.test(path) &&
    (pattern.check === undefined || pattern.check(path))
  );
}
