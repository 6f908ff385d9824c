import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = fileURLToPath(new URL('./src/', import.meta.url));

export default defineConfig({
  resolve: {
    // The examples import the package by name, as users do; tests run them on the sources.
    alias: [
      { find: /^portcullis$/u, replacement: `${src}index.ts` },
      { find: /^portcullis\/(.*)$/u, replacement: `${src}$1/index.ts` },
      // graphql 16 ships CommonJS (`main`) and ESM (`module`) side by side. Node's ESM
      // loader picks `main`, so graphql-tools, graphql-http, Yoga and Apollo share the
      // CommonJS copy; the sources must get the same one, not Vite's `module` pick (a
      // second copy fails graphql's instanceof checks).
      { find: /^graphql$/u, replacement: 'graphql/index.js' },
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
