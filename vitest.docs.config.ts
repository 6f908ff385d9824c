import { defineConfig } from 'vitest/config';

/**
 * `npm run docs:check`: the documentation site in Chromium (test/docs/site.test.ts), on the
 * build of `npm run docs:build` (.ci/run calls it right after that step). Not in `npm test`,
 * whose config (vitest.config.ts) leaves it out: the site takes a minute to build and the visit
 * of its ~500 pages most of another.
 */
export default defineConfig({
  test: {
    include: ['test/docs/site.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
