// What the consumer check (.ci/consumer-check.mjs) compiles a strict TypeScript consumer
// (test/package/consumer.mts) with: each TypeScript release line with each module
// setting. The support table of docs/installation.md lists the same;
// test/package/support-table.test.ts fails when they disagree.

/** TypeScript release lines, as `npm install typescript@<line>` takes them. */
export const typescripts = ['5.9', '6', '7'];

/**
 * Module settings: `module` / `moduleResolution`, the TypeScript lines that accept them,
 * and the compiler options each needs besides `compilerOptions` (`options`, and
 * `optionsFor` one TypeScript line). `node10` (`"moduleResolution": "node"`) resolves
 * the subpaths through package.json's `typesVersions`; TypeScript 6 deprecates it
 * (`ignoreDeprecations`), TypeScript 7 removed it. Declarations (portcullis's of
 * `ipaddr.js`, node-redis's, pino's) default-import CommonJS modules, hence
 * `esModuleInterop` (on by default from TypeScript 6).
 */
export const resolutions = [
  { module: 'node16', moduleResolution: 'node16', typescripts },
  // commonjsConsumer: test/package/consumer-cjs.cts (require() of ES modules) compiles too.
  { module: 'nodenext', moduleResolution: 'nodenext', typescripts, commonjsConsumer: true },
  { module: 'esnext', moduleResolution: 'bundler', typescripts },
  {
    module: 'commonjs',
    moduleResolution: 'node10',
    typescripts: ['5.9', '6'],
    options: { esModuleInterop: true },
    optionsFor: { 6: { ignoreDeprecations: '6.0' } },
  },
];

/** The compiler options of every compilation besides `module` and `moduleResolution`. */
export const compilerOptions = {
  strict: true,
  target: 'ES2022',
  types: ['node'],
  noEmit: true,
};
