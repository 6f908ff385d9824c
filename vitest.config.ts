import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = fileURLToPath(new URL('./src/', import.meta.url));

export default defineConfig({
  resolve: {
    // The examples import the package by name, as users do; tests run them on the sources.
    alias: [
      { find: /^portcullis$/u, replacement: `${src}index.ts` },
      { find: /^portcullis\/(.*)$/u, replacement: `${src}$1/index.ts` },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
  },
});
