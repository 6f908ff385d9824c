// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * Which way imports run (DESIGN.md): adapters → transform → authorization /
 * authentication → expression / password / throttle → users → stores → core. The
 * Redis stores (`redis`) implement the protocols' store interfaces and sit beside the
 * adapters; the `portcullis` command (`cli`) sits above all, and nothing imports it; nor
 * does anything import the testing kit (`testing`), which may import all but `cli`.
 * Each zone lists the folders a folder must not import from.
 */
const src = './src';
const adapters = ['node', 'fetch', 'fastify', 'trpc', 'graphql', 'nestjs'];
const protocols = ['jwt', 'session', 'oauth2'];
const everyFolder = [
  'core',
  'lib',
  'http',
  'expression',
  'password',
  'argon2',
  'authentication',
  'authorization',
  'transform',
  'headers',
  'cors',
  'stores',
  'users',
  'throttle',
  'redis',
  ...protocols,
  ...adapters,
  'cli',
  'testing',
];
const others = (/** @type {string[]} */ allowed) =>
  everyFolder.filter((f) => !allowed.includes(f)).map((f) => `${src}/${f}`);

/** @type {{ target: string, from: string[] }[]} */
const zones = [
  // lib/ is a leaf: helpers that import nothing of the project.
  { target: `${src}/lib`, from: others(['lib']) },
  { target: `${src}/core`, from: others(['core', 'lib']) },
  // http/ is the bridge between a framework's request and the core's SecurityRequest.
  { target: `${src}/http`, from: others(['core', 'lib', 'http']) },
  { target: `${src}/expression`, from: others(['core', 'lib', 'expression']) },
  { target: `${src}/stores`, from: others(['core', 'lib', 'stores']) },
  { target: `${src}/users`, from: others(['core', 'lib', 'stores', 'users']) },
  { target: `${src}/throttle`, from: others(['core', 'lib', 'stores', 'throttle']) },
  {
    target: `${src}/redis`,
    from: others(['core', 'lib', 'stores', 'users', 'jwt', 'session', 'redis']),
  },
  { target: `${src}/password`, from: others(['core', 'lib', 'password']) },
  { target: `${src}/argon2`, from: others(['core', 'lib', 'password', 'argon2']) },
  {
    target: `${src}/authentication`,
    from: others([
      'core',
      'lib',
      'password',
      'expression',
      'stores',
      'users',
      'throttle',
      'authentication',
    ]),
  },
  {
    target: `${src}/authorization`,
    from: others(['core', 'lib', 'expression', 'stores', 'throttle', 'authorization']),
  },
  { target: `${src}/headers`, from: others(['core', 'lib', 'headers']) },
  { target: `${src}/cors`, from: others(['core', 'lib', 'cors']) },
  {
    target: `${src}/transform`,
    from: others([
      'core',
      'lib',
      'http',
      'expression',
      'password',
      'authentication',
      'authorization',
      'cors',
      'stores',
      'users',
      'throttle',
      'transform',
    ]),
  },
  ...protocols.map((p) => ({
    target: `${src}/${p}`,
    from: others([
      'core',
      'lib',
      'http',
      'expression',
      'password',
      'authentication',
      'authorization',
      'stores',
      'users',
      'throttle',
      p,
      // OAuth2 login ends in a session (the sessions issue): oauth2 may use session.
      ...(p === 'oauth2' ? ['session'] : []),
    ]),
  })),
  ...adapters.map((a) => ({
    target: `${src}/${a}`,
    from: [...adapters.filter((b) => b !== a), 'cli', 'testing'].map((b) => `${src}/${b}`),
  })),
  // cli/ holds the package-wide `portcullis` command: the GraphQL schema check, the
  // explanation of the URL rules, password hashing and development tokens (on the testing
  // kit's token minting); nothing imports it but the type of its configuration.
  {
    target: `${src}/cli`,
    from: others([
      'core',
      'lib',
      'expression',
      'authorization',
      'graphql',
      'cli',
      'jwt',
      'users',
      'argon2',
      'password',
      'testing',
    ]),
  },
  // testing/ is the testing kit (`portcullis/testing`): it may use every folder but the
  // command, and nothing imports it.
  { target: `${src}/testing`, from: [`${src}/cli`] },
];
const outside = ['./examples', './test', './bench'];

/**
 * The folders each folder may import, as the zones allow: checked here to form no
 * cycle, so that no two folders can ever import each other (the config fails to load
 * otherwise).
 */
function assertNoFolderCycle() {
  /** @type {Map<string, string[]>} */
  const allowed = new Map(
    zones.map(({ target, from }) => {
      const name = target.slice(src.length + 1);
      const refused = new Set(from.map((f) => f.slice(src.length + 1)));
      return [name, everyFolder.filter((f) => f !== name && !refused.has(f))];
    }),
  );
  /** @type {Set<string>} */
  const done = new Set();
  /** @param {string} folder @param {string[]} path */
  const visit = (folder, path) => {
    if (path.includes(folder)) {
      throw new Error(`The lint zones allow an import cycle: ${[...path, folder].join(' → ')}`);
    }
    if (done.has(folder)) return;
    for (const next of allowed.get(folder) ?? []) visit(next, [...path, folder]);
    done.add(folder);
  };
  for (const folder of everyFolder) {
    if (!allowed.has(folder)) throw new Error(`No lint zone for src/${folder}`);
    visit(folder, []);
  }
}
assertNoFolderCycle();

/**
 * One config block per zone: ESLint's own `no-restricted-imports` forbids the
 * relative imports that would run the wrong way.
 */
const boundaries = zones.map(({ target, from }) => {
  const here = target.replace(/^\.\//u, '');
  return {
    files: [`${here}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                ...from.flatMap((f) => {
                  const name = f.replace(/^\.\/src\//u, '');
                  return [`../${name}/**`, `../${name}`];
                }),
                ...outside.map((f) => `../../${f.slice(2)}/**`),
              ],
              message:
                'Imports run adapters → transform → authorization/authentication → password → core (DESIGN.md).',
            },
          ],
        },
      ],
    },
  };
});

export default defineConfig(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.tmp/**',
      '.bench-build/**',
      // the documentation site's build output and cache, and TypeDoc's pages (npm run docs:build)
      'docs/.vitepress/dist/**',
      'docs/.vitepress/cache/**',
      'docs/api/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '.ci/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  ...boundaries,
  {
    // No import cycle between files either, within a folder or across folders.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      globals: { console: 'readonly', process: 'readonly', URL: 'readonly' },
    },
  },
  {
    files: ['test/**', 'bench/**', 'examples/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    // Nest applications: a module is a decorated class without members, and Nest types its
    // options objects (`NestFactory.create(…, { logger })`) as classes it never instantiates.
    files: ['test/nestjs/**', 'examples/nestjs/**', 'bench/servers/nestjs.ts'],
    rules: {
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
);
