import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The argon2 files Node has loaded after importing `entry` in a fresh process. */
async function argon2FilesLoadedBy(entry: string): Promise<string[]> {
  const script = `
    import { createRequire } from 'node:module';
    await import(${JSON.stringify(new URL(entry, `file://${root}`).href)});
    const loaded = Object.keys(createRequire(process.cwd() + '/').cache);
    console.log(JSON.stringify(loaded.filter((file) => /[\\\\/]argon2[\\\\/]/.test(file))));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', script],
    { cwd: root },
  );
  return JSON.parse(stdout) as string[];
}

describe('the password entry', () => {
  it('does not load the argon2 native module', async () => {
    expect(await argon2FilesLoadedBy('src/password/index.ts')).toEqual([]);
  });

  it('(control) portcullis/argon2 does load it, so the probe sees it', async () => {
    const loaded = await argon2FilesLoadedBy('src/argon2/index.ts');
    expect(loaded.some((file) => file.endsWith('.node'))).toBe(true);
  });
});
