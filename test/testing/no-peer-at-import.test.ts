import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The packages a source file loads when imported: its static value imports, followed. */
function loadedPackages(entry: string): string[] {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const [, kind, specifier] of text.matchAll(
      /^(?:import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gmsu,
    )) {
      if (kind !== undefined || specifier === undefined) continue; // `import type`: erased
      if (specifier.startsWith('.'))
        visit(resolve(dirname(file), specifier.replace(/\.js$/u, '.ts')));
      else packages.add(specifier);
    }
  };
  visit(resolve(root, entry));
  return [...packages].sort();
}

describe('portcullis/testing', () => {
  it('loads no peer when imported: each helper loads its own on first use', () => {
    const packages = loadedPackages('src/testing/index.ts');
    expect(packages.every((name) => name.startsWith('node:'))).toBe(true);
    // The walk follows imports: the tRPC helpers' module does reach the peer.
    expect(loadedPackages('src/trpc/context.ts')).toContain('@trpc/server');
  });
});
