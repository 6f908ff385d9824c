// The TypeScript blocks of the documentation's Markdown pages, as the snippet check
// (docs/check-snippets.mjs) compiles them and the tests that run a page's program
// (test/docs/getting-started.test.ts) take them: one definition of what a block is.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The documentation's folder. */
export const docs = resolve(import.meta.dirname);

/** The repository's README, whose TypeScript example the snippet check compiles with the pages'. */
export const readme = resolve(docs, '..', 'README.md');

/**
 * One TypeScript block of a page.
 * @typedef {object} Snippet
 * @property {string} page the page's path
 * @property {number} line the line (1-based) of the block's first content line
 * @property {string} code its content, the fence's indentation removed
 * @property {boolean} skip its info string says `no-check`
 * @property {boolean} expectError its info string says `expect-error`
 */

/**
 * The Markdown pages under docs/, without the generated API reference and VitePress's folders.
 * @param {string} [dir]
 * @returns {string[]}
 */
export function pages(dir = docs) {
  /** @type {string[]} */
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path === join(docs, 'api') || entry.name.startsWith('.') || entry.name === 'node_modules')
        continue;
      found.push(...pages(path));
    } else if (entry.name.endsWith('.md')) {
      found.push(path);
    }
  }
  return found.sort();
}

/**
 * The pages whose TypeScript blocks the snippet check compiles: every page of {@link pages}, and
 * the README.
 * @returns {string[]}
 */
export function checkedPages() {
  return [...pages(), readme];
}

/**
 * The TypeScript blocks (```ts, ```typescript) of one page, in order.
 * @param {string} page
 * @returns {Snippet[]}
 */
export function snippets(page) {
  const lines = readFileSync(page, 'utf8').split(/\r?\n/u);
  /** @type {Snippet[]} */
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(\S*)(.*)$/u.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '', lang = '', rest = ''] = open;
    const close = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`, 'u');
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !close.test(lines[j] ?? ''); j++) {
      const text = lines[j] ?? '';
      body.push(text.startsWith(indent) ? text.slice(indent.length) : text.trimStart());
    }
    if (lang === 'ts' || lang === 'typescript') {
      found.push({
        page,
        line: i + 2,
        code: body.join('\n'),
        skip: rest.split(/\s+/u).includes('no-check'),
        expectError: rest.split(/\s+/u).includes('expect-error'),
      });
    }
    i = j;
  }
  return found;
}
