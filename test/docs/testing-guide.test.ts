/**
 * The testing guide's examples run as tests: every TypeScript block of
 * docs/guides/testing.md that imports Vitest, read as the snippet check reads it
 * (docs/snippets.mjs), is written into .tmp/docs-testing-guide/ and imported here, so its
 * `describe` and `it` calls register in this file and run with the suite, against the
 * sources (Vitest's aliases map `portcullis/*` to src/). A page example that stops passing
 * fails the build, not only one that stops compiling.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';

interface Snippet {
  readonly line: number;
  readonly code: string;
  readonly skip: boolean;
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const page = join(root, 'docs', 'guides', 'testing.md');
const work = join(root, '.tmp', 'docs-testing-guide');

// Imported by URL, as a module without declarations (docs/ is not in the tsconfig).
const { snippets } = (await import(pathToFileURL(join(root, 'docs', 'snippets.mjs')).href)) as {
  snippets: (page: string) => Snippet[];
};

/** The page's runnable examples: the blocks that import Vitest, hidden lines kept. */
const examples = snippets(page).filter(
  (snippet) => !snippet.skip && /from 'vitest'/u.test(snippet.code),
);

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
for (const example of examples) {
  const file = join(work, `line-${example.line}.test-example.ts`);
  writeFileSync(file, `${example.code.replace('// ---cut---\n', '')}\n`);
  await import(pathToFileURL(file).href);
}

it('docs/guides/testing.md has a Vitest example, and it runs here', () => {
  expect(examples.length).toBeGreaterThan(0);
});
