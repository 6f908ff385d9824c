// The documentation's snippet check: every ```ts / ```typescript block of docs/**/*.md
// (the generated docs/api/ aside) and of README.md is written as a module of its own into
// .tmp/docs-snippets/ and all of them are type-checked in one `tsc` program (strict, module
// nodenext, `types: ["node"]`) against the package as it is built: the declarations that
// tsconfig.build.json emits from src/, under node_modules/portcullis/ with the package's own
// package.json, so that `portcullis` and `portcullis/<subpath>` resolve through its `exports`
// as they do for a user. Other packages (express, jose, …) resolve from the checkout's
// node_modules.
//
// Conventions, as twoslash's: the lines of a block before a `// ---cut---` line are compiled
// but not shown (docs/.vitepress/config.mts drops them from the page); a block whose info
// string says `no-check` (```ts no-check) is skipped; one that says `expect-error` shows a
// compile error on purpose, and must fail to compile. Errors are reported as page:line.
//
// node docs/check-snippets.mjs [--keep]   (exit 1 on any error; --keep leaves the folder)
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { checkedPages, docs, snippets } from './snippets.mjs';

const root = resolve(import.meta.dirname, '..');
const work = join(root, '.tmp', 'docs-snippets');
const tsc = join(root, 'node_modules', 'typescript', 'lib', 'tsc.js');
const started = Date.now();

rmSync(work, { recursive: true, force: true });
const pkgDir = join(work, 'node_modules', 'portcullis');
mkdirSync(pkgDir, { recursive: true });
// Not named portcullis: the snippets must reach the package through node_modules, as a
// user's code does, not through a self-reference to the checkout.
writeFileSync(
  join(work, 'package.json'),
  JSON.stringify({ name: 'docs-snippets', private: true, type: 'module' }),
);
copyFileSync(join(root, 'package.json'), join(pkgDir, 'package.json'));
// tsc emits the declarations even when src/ has a type error; that error is the build's and
// the type check's to fail on (npm run build, npm run typecheck), so here it is a warning.
const declarations = spawnSync(
  process.execPath,
  [
    tsc,
    '-p',
    join(root, 'tsconfig.build.json'),
    '--emitDeclarationOnly',
    '--declarationMap',
    'false',
    '--outDir',
    join(pkgDir, 'dist'),
  ],
  { cwd: root, encoding: 'utf8' },
);
if (declarations.status !== 0) {
  console.warn(
    `warning: the package's declarations were emitted with errors of src/ (npm run typecheck):\n${declarations.stdout}${declarations.stderr}`,
  );
}

/** @type {Map<string, { page: string, line: number, expectError: boolean }>} */
const origin = new Map();
let checked = 0;
let skipped = 0;
const all = checkedPages().flatMap(snippets);
for (const snippet of all) {
  if (snippet.skip) {
    skipped++;
    continue;
  }
  // A page of docs/ by its path there; the README as root__README (tsc's `*` skips a name
  // that begins with a dot, as ../README would).
  const page = snippet.page.startsWith(docs + sep)
    ? relative(docs, snippet.page)
    : `root__${relative(root, snippet.page)}`;
  const name = `${page.replace(/\.md$/u, '').replaceAll(/[\\/]/gu, '__')}_L${snippet.line}.ts`;
  origin.set(name, snippet);
  // `export {}` makes every block a module of its own (no clash of top-level names); at the
  // end, so that a snippet's line n is line n of its file.
  writeFileSync(join(work, name), `${snippet.code}\nexport {};\n`);
  checked++;
}
writeFileSync(
  join(work, 'tsconfig.json'),
  JSON.stringify(
    {
      compilerOptions: {
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['ES2023'],
        types: ['node'],
        strict: true,
        // Nest's decorators (docs/guides/nestjs.md), as every Nest application compiles them.
        experimentalDecorators: true,
        skipLibCheck: true,
        noEmit: true,
        noUnusedLocals: false,
      },
      include: ['*.ts'],
    },
    null,
    2,
  ),
);

const result = spawnSync(
  process.execPath,
  [tsc, '-p', join(work, 'tsconfig.json'), '--pretty', 'false'],
  { cwd: work, encoding: 'utf8' },
);
const output = `${result.stdout}${result.stderr}`.trim();
let errors = 0;
/** @type {Set<string>} */
const failed = new Set();
for (const raw of output.split('\n')) {
  const match = /^(.+?\.ts)\((\d+),(\d+)\): (error .*)$/u.exec(raw);
  const at = match ? origin.get(match[1] ?? '') : undefined;
  if (match && at) {
    failed.add(match[1] ?? '');
    if (at.expectError) continue;
    errors++;
    const line = at.line + Number(match[2]) - 1;
    console.error(`${relative(root, at.page)}:${line}:${match[3]}: ${match[4]}`);
  } else if (raw.trim() !== '') {
    if (/error TS/u.test(raw)) errors++;
    console.error(raw);
  }
}
// A block marked `expect-error` shows a compile error on purpose: it must fail.
for (const [name, at] of origin) {
  if (at.expectError && !failed.has(name)) {
    errors++;
    console.error(
      `${relative(root, at.page)}:${at.line}: the block is marked expect-error but compiles`,
    );
  }
}
const pageCount = new Set(all.map((s) => s.page)).size;
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(
  `docs snippets: ${checked} checked, ${skipped} skipped (no-check), from ${pageCount} pages; ${errors} errors (${seconds}s)`,
);
if (!process.argv.includes('--keep') && errors === 0)
  rmSync(work, { recursive: true, force: true });
// tsc also fails for the expected errors of `expect-error` blocks; a failure with no
// diagnostic of a snippet is tsc's own (a bad option, a crash).
if (errors > 0 || (result.status !== 0 && failed.size === 0)) process.exit(1);
