/**
 * Every TypeScript block of the documentation compiles (docs/check-snippets.mjs): one `tsc`
 * program over all of them against the package's built declarations; a failure lists each
 * error as page:line.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

it('every TypeScript snippet of docs/ type-checks against the built package', () => {
  const run = spawnSync(process.execPath, ['docs/check-snippets.mjs'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 170_000,
  });
  const output = `${run.stdout}${run.stderr}`;
  expect(output).toMatch(/docs snippets: [1-9]\d* checked/u);
  expect(run.status, output).toBe(0);
}, 180_000);
