import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const src = fileURLToPath(new URL('./src/', import.meta.url));

export default defineConfig({
  resolve: {
    // The examples import the package by name, as users do; tests run them on the sources.
    alias: [
      { find: /^portcullis$/u, replacement: `${src}index.ts` },
      { find: /^portcullis\/(.*)$/u, replacement: `${src}$1/index.ts` },
      // graphql ships two copies: 16 CommonJS (`main`) and ESM (`module`); 17 per `exports`
      // condition (`module-sync`/`default`: ESM, `node`/`require`: CommonJS, `development`: a
      // third, development build). graphql-tools, graphql-http, Yoga and Apollo are loaded by
      // Node's own loader; the sources must get the copy it picks (16: `main`; 17 on Node 22+:
      // `module-sync`), not Vite's pick (`module`, `development`): a second copy fails graphql's
      // instanceof checks ("another module or realm").
      { find: /^graphql$/u, replacement: fileURLToPath(import.meta.resolve('graphql')) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The documentation site in Chromium: `npm run docs:check` (vitest.docs.config.ts), on the
    // build of `npm run docs:build`.
    exclude: [...configDefaults.exclude, 'test/docs/site.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
  },
});
