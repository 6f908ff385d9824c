/**
 * README.md is the front door: under 15 KB, every relative link leads to a file of the
 * repository, and its TypeScript example is one of the blocks the snippet check
 * (docs/check-snippets.mjs, run by test/docs/snippets.test.ts) type-checks against the built
 * package. Everything else lives on the documentation site (docs/).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

interface Snippet {
  readonly line: number;
  readonly code: string;
  readonly skip: boolean;
  readonly expectError: boolean;
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const readmePath = join(root, 'README.md');
/** The README's limit, in bytes. */
const MAX_BYTES = 15 * 1024;

// Imported by URL, as a module without declarations (docs/ is not in the tsconfig).
const { checkedPages, snippets } = (await import(
  pathToFileURL(join(root, 'docs', 'snippets.mjs')).href
)) as { checkedPages: () => string[]; snippets: (page: string) => Snippet[] };

/**
 * The targets of the Markdown links and images of `markdown` that lead into the repository:
 * neither a URL with a scheme (`https:`, `mailto:`) nor a fragment of the page itself; the
 * fragment and query removed. Code blocks and code spans are left out.
 */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replaceAll(/^```[\s\S]*?^```/gmu, '').replaceAll(/`[^`\n]*`/gu, '');
  const targets = [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/gu)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/iu.test(target) && !target.startsWith('#'));
  return targets.map((target) => decodeURIComponent(target.replace(/[?#].*$/u, '')));
}

describe('README.md', () => {
  const readme = readFileSync(readmePath, 'utf8');

  it(`is under ${MAX_BYTES / 1024} KB`, () => {
    expect(statSync(readmePath).size).toBeLessThan(MAX_BYTES);
  });

  it('links only to files that exist', () => {
    const links = relativeLinks(readme);
    expect(links.length, 'the README links to the documentation pages').toBeGreaterThan(10);
    const missing = links.filter((link) => !existsSync(resolve(root, link)));
    expect(missing).toEqual([]);
  });

  it('links to every page of the documentation site', () => {
    const linked = new Set(relativeLinks(readme).map((link) => resolve(root, link)));
    const unlinked = checkedPages()
      .filter((page) => page !== readmePath && page !== join(root, 'docs', 'index.md'))
      .filter((page) => !linked.has(page))
      .map((page) => page.slice(root.length));
    expect(unlinked).toEqual([]);
  });

  it('has a TypeScript example that the snippet check compiles', () => {
    const blocks = snippets(readmePath);
    expect(blocks.length).toBeGreaterThan(0);
    expect(blocks.filter((block) => block.skip || block.expectError)).toEqual([]);
    expect(checkedPages()).toContain(readmePath);
    // The example imports the package by its name, as a user's code does.
    expect(blocks.map((block) => block.code).join('\n')).toMatch(/from 'portcullis'/u);
  });
});

describe('relativeLinks', () => {
  it('finds links and images into the repository, and nothing else', () => {
    const markdown = [
      '[a](docs/a.md) and [b](docs/b.md#part) ![c](bench/c.svg "title")',
      '[web](https://example.com) [mail](mailto:x@example.com) [here](#install)',
      '`[code](not/a/link.md)`',
      '```md',
      '[fenced](not/a/link.md)',
      '```',
      '[spaced](<docs/with%20space.md>)',
    ].join('\n');
    expect(relativeLinks(markdown)).toEqual([
      'docs/a.md',
      'docs/b.md',
      'bench/c.svg',
      'docs/with space.md',
    ]);
  });
});
