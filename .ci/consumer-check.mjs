// Packs the package, installs the tarball into a temporary project and imports every
// subpath from ESM and with require(). First without optional dependencies and
// peers (the core and the framework-free adapters must load without them), then
// with them.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

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
};
const devVersion = (name) =>
  JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

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
  console.log(`consumer check passed: ${subpaths.length} subpaths`);
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
