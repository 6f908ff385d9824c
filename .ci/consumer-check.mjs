// Packs the package, installs the tarball into a temporary project and imports every
// subpath from ESM and with require(). First without optional dependencies and
// peers (the core and the framework-free adapters must load without them), then
// with them. Then compiles a strict TypeScript consumer of every subpath
// (test/package/consumer.mts) with each TypeScript and module setting of
// .ci/consumer-matrix.mjs.
import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { compilerOptions, resolutions, typescripts } from './consumer-matrix.mjs';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const subpaths = Object.keys(pkg.exports).filter((p) => p !== './package.json');
const needs = {
  './argon2': ['argon2'],
  './fastify': ['fastify'],
  './trpc': ['@trpc/server'],
  './graphql': ['graphql', '@graphql-tools/utils'],
  './jwt': ['jose'],
  './session': ['iron-session'],
  './oauth2': ['oauth4webapi', 'iron-session'],
  './redis': ['redis'],
  './nestjs': ['@nestjs/common', '@nestjs/core', 'rxjs', 'reflect-metadata'],
};
const devVersion = (name) =>
  JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

const execFileAsync = promisify(execFile);
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

const work = mkdtempSync(join(tmpdir(), 'portcullis-consumer-'));
try {
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], root));
  const tarball = join(work, packed[0].filename);
  const project = join(work, 'project');
  run('mkdir', ['-p', project], work);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }),
  );
  const npmInstall = (args) =>
    run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', ...args], project);

  const check = (label, specs) => {
    for (const spec of specs) {
      const name = `portcullis${spec.slice(1)}`;
      const esm = `const m = await import(${JSON.stringify(name)}); if (Object.keys(m).length === 0) throw new Error('no exports');`;
      run('node', ['--input-type=module', '-e', esm], project);
      const cjs = `const m = require(${JSON.stringify(name)}); if (Object.keys(m).length === 0) throw new Error('no exports');`;
      run('node', ['--no-warnings', '-e', cjs], project);
      console.log(`ok ${label}: ${name} (import and require)`);
    }
  };

  npmInstall(['--omit=optional', '--omit=peer', tarball]);
  checkSourceMaps(join(project, 'node_modules', 'portcullis'));
  const bare = subpaths.filter((p) => !(p in needs));
  check('without optional and peer dependencies', bare);
  // The core must not load argon2: with argon2 absent, importing it would fail.
  run(
    'node',
    [
      '--input-type=module',
      '-e',
      "await import('portcullis'); await import('portcullis/node'); await import('portcullis/fetch');",
    ],
    project,
  );

  const extras = [...new Set(Object.values(needs).flat())].map((n) => `${n}@${devVersion(n)}`);
  npmInstall([tarball, ...extras]);
  check('with peers', subpaths);
  // The `portcullis` command: a clean schema passes, a bad expression fails with 1.
  writeFileSync(join(project, 'good.graphql'), 'type Query { a: Int @secured(roles: "A") }');
  writeFileSync(join(project, 'bad.graphql'), 'type Query { a: Int @preAuthorize(expr: "x(") }');
  run('npx', ['--no-install', 'portcullis', 'check-schema', 'good.graphql'], project);
  try {
    run('npx', ['--no-install', 'portcullis', 'check-schema', 'bad.graphql'], project);
    throw new Error('check-schema accepted a bad schema');
  } catch (error) {
    if (error.status !== 1) throw error;
  }
  console.log('ok portcullis check-schema (bin)');
  const compiled = await checkTypes(project, npmInstall);
  console.log(
    `consumer check passed: ${subpaths.length} subpaths, ${compiled} TypeScript compilations`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

/**
 * Every source map of the installed package (`.js.map` for stack traces and debuggers,
 * `.d.ts.map` for go-to-definition) names sources that the package ships.
 */
function checkSourceMaps(installed) {
  let maps = 0;
  const missing = [];
  for (const entry of readdirSync(join(installed, 'dist'), { recursive: true })) {
    const file = join(installed, 'dist', String(entry));
    if (!file.endsWith('.map')) continue;
    maps++;
    const map = JSON.parse(readFileSync(file, 'utf8'));
    for (const source of map.sources) {
      if (!existsSync(resolve(dirname(file), map.sourceRoot ?? '', source)))
        missing.push(`${entry}: ${source}`);
    }
  }
  if (maps === 0) throw new Error('the package has no source maps');
  if (missing.length > 0)
    throw new Error(
      `source maps name sources the package lacks:\n${missing.slice(0, 10).join('\n')}`,
    );
  console.log(`ok source maps: ${maps} maps, every source shipped`);
}

/**
 * Compiles the strict consumer (every subpath, with its peers' types) under each
 * TypeScript line and module setting of the matrix, each TypeScript installed once
 * under an alias (`typescript-7` is `typescript@7`) beside the peers, two compilations
 * at a time. Then checks the installation page's word (docs/installation.md) that
 * TypeScript 6 and later need `"types": ["node"]`: a consumer of `portcullis` alone without it fails to compile.
 * Returns the number of passing compilations.
 */
async function checkTypes(project, npmInstall) {
  const started = Date.now();
  const alias = (line) => `typescript-${line}`;
  npmInstall([
    ...typescripts.map((line) => `${alias(line)}@npm:typescript@${line}`),
    `@types/node@${devVersion('@types/node')}`,
  ]);
  for (const file of ['consumer.mts', 'consumer-cjs.cts'])
    copyFileSync(join(root, 'test', 'package', file), join(project, file));
  writeFileSync(
    join(project, 'core-only.mts'),
    "import { User } from 'portcullis';\nexport const user: User | null = null;\n",
  );
  const version = Object.fromEntries(
    typescripts.map((line) => {
      const bin = join(project, 'node_modules', alias(line), 'bin', 'tsc');
      return [
        line,
        run('node', [bin, '--version'], project)
          .trim()
          .replace(/^Version /u, ''),
      ];
    }),
  );
  /** tsc's errors, or undefined when the file compiles. */
  const tsc = async (line, name, files, options) => {
    const config = `tsconfig.${name}.json`;
    writeFileSync(
      join(project, config),
      JSON.stringify({ compilerOptions: options, files }, null, 2),
    );
    const bin = join(project, 'node_modules', alias(line), 'bin', 'tsc');
    try {
      await execFileAsync('node', [bin, '-p', config, '--pretty', 'false'], { cwd: project });
      return undefined;
    } catch (error) {
      if (typeof error.stdout !== 'string' || error.stdout === '') throw error;
      return error.stdout;
    }
  };
  const jobs = [];
  for (const line of typescripts) {
    for (const { module, moduleResolution, ...setting } of resolutions) {
      if (!setting.typescripts.includes(line)) continue;
      const options = {
        ...compilerOptions,
        module,
        moduleResolution,
        ...setting.options,
        ...setting.optionsFor?.[line],
      };
      const label = `TypeScript ${version[line]}, module ${module}, moduleResolution ${moduleResolution}`;
      jobs.push(async () => {
        const files = ['consumer.mts', ...(setting.commonjsConsumer ? ['consumer-cjs.cts'] : [])];
        const errors = await tsc(line, `${line}.${moduleResolution}`, files, options);
        if (errors !== undefined)
          throw new Error(`the strict consumer fails to compile with ${label}:\n${errors}`);
        console.log(`ok types: ${label}${setting.commonjsConsumer ? ' (ESM and CommonJS)' : ''}`);
      });
    }
  }
  await inParallel(jobs, 2);
  const latest = typescripts.at(-1);
  const withoutTypes = { ...compilerOptions };
  delete withoutTypes.types;
  const { module, moduleResolution } = resolutions[0];
  const errors = await tsc(latest, 'without-types', ['core-only.mts'], {
    ...withoutTypes,
    module,
    moduleResolution,
  });
  if (errors === undefined || !errors.includes("'node:util'"))
    throw new Error(
      `without "types": ["node"], TypeScript ${version[latest]} was expected to miss 'node:util' (docs/installation.md, Supported versions, says so); update that page:\n${errors ?? 'it compiled'}`,
    );
  console.log(
    `ok types: without "types": ["node"], TypeScript ${version[latest]} misses node:util`,
  );
  console.log(`types checked in ${Math.round((Date.now() - started) / 1000)} s`);
  return jobs.length;
}

/** Runs the jobs, `width` at a time; rejects with the first failure once all ended. */
async function inParallel(jobs, width) {
  const queue = [...jobs];
  const failures = [];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
        try {
          await job();
        } catch (error) {
          failures.push(error);
        }
      }
    }),
  );
  if (failures.length > 0) throw failures[0];
}
