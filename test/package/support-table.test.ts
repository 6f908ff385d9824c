/**
 * The support table of the installation page (docs/installation.md, Supported versions) says
 * what CI proves: the Node floor of
 * `engines`, each peer's range of `peerDependencies`, and the TypeScript lines and
 * module settings the consumer check (`.ci/consumer-check.mjs`) compiles a strict
 * consumer with (`.ci/consumer-matrix.mjs`); its tsconfig is the one the check uses.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

interface Resolution {
  readonly commonjsConsumer?: boolean;
  readonly module: string;
  readonly moduleResolution: string;
  readonly typescripts: readonly string[];
  readonly options?: Readonly<Record<string, unknown>>;
  readonly optionsFor?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}
interface Matrix {
  readonly typescripts: readonly string[];
  readonly resolutions: readonly Resolution[];
  readonly compilerOptions: Readonly<Record<string, unknown>>;
}
interface PackageJson {
  readonly engines: { readonly node: string };
  readonly exports: Readonly<Record<string, unknown>>;
  readonly peerDependencies: Readonly<Record<string, string>>;
  readonly optionalDependencies: Readonly<Record<string, string>>;
  readonly typesVersions?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
}

const root = new URL('../../', import.meta.url);
const text = (path: string): string => readFileSync(fileURLToPath(new URL(path, root)), 'utf8');
const pkg = JSON.parse(text('package.json')) as PackageJson;
const matrix = (await import(
  pathToFileURL(fileURLToPath(new URL('.ci/consumer-matrix.mjs', root))).href
)) as Matrix;

/** The installation page: a page titled `# Installation`, whole (its table, tsconfig and notes). */
function installationPage(page: string): string {
  if (!/^# Installation\r?\n/u.test(page))
    throw new Error('the installation page does not begin with "# Installation"');
  return page;
}

/** The rows of the table headed `| | tested |`, as first cell → second cell. */
function supportTable(page: string): Map<string, string> {
  const lines = page.split('\n');
  const head = lines.findIndex((line) => /^\|\s*\|\s*tested\s*\|$/u.test(line));
  if (head < 0) throw new Error('the installation page has no "| | tested |" table');
  const rows = new Map<string, string>();
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith('|')) break;
    // A cell holds `\|` for a `|` (a range such as `^4.0.0 \|\| ^5.0.0`).
    const cells = line
      .split(/(?<!\\)\|/u)
      .slice(1, -1)
      .map((cell) => cell.trim().replaceAll('\\|', '|'));
    const [name, value] = cells;
    if (cells.length !== 2 || name === undefined || value === undefined)
      throw new Error(`a row of the support table has ${cells.length} cells: ${line}`);
    if (rows.has(name)) throw new Error(`the support table has two rows "${name}"`);
    rows.set(name, value);
  }
  return rows;
}

/** The `tsconfig.json` block of the page (JSON with `//` comments), parsed. */
function consumerTsconfig(page: string): Record<string, unknown> {
  const block = /```jsonc\n(\{[\s\S]*?\})\n```/u.exec(page)?.[1];
  if (block === undefined) throw new Error('the installation page has no ```jsonc tsconfig');
  const json = block.replace(/\s*\/\/.*$/gmu, '');
  const parsed = JSON.parse(json) as { compilerOptions?: Record<string, unknown> };
  if (parsed.compilerOptions === undefined) throw new Error('the tsconfig has no compilerOptions');
  return parsed.compilerOptions;
}

const code = (value: string): string => `\`${value}\``;
const resolutionCell = (r: Resolution): string =>
  `${code(r.module)} / ${code(r.moduleResolution)}` +
  (r.typescripts.length === matrix.typescripts.length
    ? ''
    : ` (TypeScript ${r.typescripts.join(', ')})`);

describe('the support table of docs/installation.md', () => {
  const page = installationPage(text('docs/installation.md'));
  const table = supportTable(page);

  it('names the Node floor of engines and the Node majors CI runs the suite on', () => {
    const floor = /^>=(\d+\.\d+)$/u.exec(pkg.engines.node)?.[1];
    expect(floor, `engines.node ${pkg.engines.node}`).toBeDefined();
    const majors = /^for major in ([\d ]+); do$/mu.exec(text('.ci/run'))?.[1]?.split(' ');
    expect(majors, '.ci/run: for major in … ; do').toBeDefined();
    expect(table.get('Node')).toBe([`${floor}+`, ...(majors ?? [])].join(', '));
  });

  it('names the TypeScript lines and module settings the consumer check compiles with', () => {
    expect(table.get('TypeScript')).toBe(matrix.typescripts.join(', '));
    expect(table.get('`module` / `moduleResolution`')).toBe(
      matrix.resolutions.map(resolutionCell).join(', '),
    );
  });

  it('names every peer with its range, and the optional dependencies', () => {
    const expected = new Map<string, string>([
      ...Object.entries(pkg.peerDependencies).map(([name, range]): [string, string] => [
        code(name),
        code(range),
      ]),
      ...Object.entries(pkg.optionalDependencies).map(([name, range]): [string, string] => [
        `${code(name)} (optional)`,
        code(range),
      ]),
    ]);
    const listed = new Map([...table].filter(([name]) => /^`[^`]+`( \(optional\))?$/u.test(name)));
    expect(listed).toEqual(expected);
  });

  it('shows the tsconfig the consumer check compiles with', () => {
    const shown = consumerTsconfig(page);
    const options: Record<string, unknown> = { ...matrix.compilerOptions };
    delete options['noEmit'];
    const { module, moduleResolution } = shown;
    const setting = matrix.resolutions.find(
      (r) => r.module === module && r.moduleResolution === moduleResolution,
    );
    expect(setting, `${String(module)} / ${String(moduleResolution)}`).toBeDefined();
    expect(shown).toEqual({ ...options, module, moduleResolution });
  });

  it('names the options a module setting needs besides the tsconfig', () => {
    for (const r of matrix.resolutions) {
      const extra = [r.options ?? {}, ...Object.values(r.optionsFor ?? {})];
      for (const [key, value] of extra.flatMap((options) => Object.entries(options)))
        expect(page, `${r.moduleResolution}: ${key}`).toContain(
          `"${key}": ${JSON.stringify(value)}`,
        );
    }
  });
});

describe('the strict consumer', () => {
  const subpaths = Object.keys(pkg.exports)
    .filter((path) => path !== './package.json')
    .map((path) => `portcullis${path.slice(1)}`)
    .sort();
  const imported = (file: string, pattern: RegExp): string[] =>
    [...new Set([...text(file).matchAll(pattern)].map((m) => m[1] ?? ''))].sort();

  it('imports every subpath of exports, as ES modules and with require()', () => {
    expect(imported('test/package/consumer.mts', /from '(portcullis(?:\/[a-z0-9]+)?)'/gu)).toEqual(
      subpaths,
    );
    expect(
      imported('test/package/consumer-cjs.cts', /require\('(portcullis(?:\/[a-z0-9]+)?)'\)/gu),
    ).toEqual(subpaths);
  });
});

describe('typesVersions (node10 resolution)', () => {
  it('maps every subpath of exports to its types, and nothing else', () => {
    const expected = Object.fromEntries(
      Object.entries(pkg.exports)
        .filter(([path]) => path !== '.' && path !== './package.json')
        .map(([path, target]) => [path.slice(2), [(target as { types: string }).types]]),
    );
    expect(pkg.typesVersions).toEqual({ '*': expected });
  });
});

describe('the table parser', () => {
  it('fails on a page without the table', () => {
    expect(() => supportTable('# Installation\n\nno table\n')).toThrow(/no "\| \| tested \|"/u);
    expect(() => installationPage('# x\n')).toThrow(/not begin with "# Installation"/u);
    expect(() => installationPage('## Installation\n')).toThrow(/not begin with/u);
  });

  it('reads a table and refuses a duplicated row', () => {
    const table = '| | tested |\n|---|---|\n| Node | 20.19+ |\n| `a` | `^1 \\|\\| ^2` |\n\nafter';
    expect([...supportTable(table)]).toEqual([
      ['Node', '20.19+'],
      ['`a`', '`^1 || ^2`'],
    ]);
    expect(() => supportTable('| | tested |\n|---|---|\n| a | 1 |\n| a | 2 |\n')).toThrow(
      /two rows/u,
    );
  });
});

describe('the peers job (.ci/peers.sh)', () => {
  /** The npm specs of a set: `name=(` … `)` in the script, quotes removed. */
  const set = (name: string): Map<string, string> => {
    const body = new RegExp(`^${name}=\\(([^)]*)\\)`, 'mu').exec(text('.ci/peers.sh'))?.[1];
    if (body === undefined) throw new Error(`.ci/peers.sh has no ${name}=( … )`);
    const specs = body
      .split(/\s+/u)
      .filter((word) => word !== '')
      .map((word) => word.replaceAll("'", ''));
    return new Map(
      specs.map((spec) => {
        const at = spec.indexOf('@', 1);
        return [spec.slice(0, at), spec.slice(at + 1)];
      }),
    );
  };
  /**
   * The lowest version a range of the forms package.json uses admits: `^a.b.c || …`
   * (the first alternative is the lowest) or `>=a.b.c <n`. Any other form fails here,
   * to be taught first.
   */
  const floorOf = (range: string): string => {
    const first = range.split('||')[0]!.trim();
    const found = /^(?:\^|>=)(\d+\.\d+\.\d+)(?: <\d+)?$/u.exec(first)?.[1];
    if (found === undefined) throw new Error(`a range of an unknown form: ${range}`);
    return found;
  };
  const ranges = { ...pkg.peerDependencies, ...pkg.optionalDependencies };

  it('installs the lowest version of every range in the oldest set', () => {
    const oldest = set('oldest');
    for (const [name, range] of Object.entries(ranges)) {
      expect(oldest.get(name), `${name} ${range}`).toBe(floorOf(range));
    }
  });

  it('installs every peer and optional dependency in the newest set, within its range', () => {
    const newest = set('newest');
    for (const [name, range] of Object.entries(ranges)) {
      const spec = newest.get(name);
      expect(spec, name).toBeDefined();
      // `^n` for a `… || ^n.x.y` range (its newest major), or the range's own upper bound.
      const major = /\^(\d+)\.\d+\.\d+$/u.exec(range)?.[1];
      const upper = /<(\d+)$/u.exec(range)?.[1];
      expect(spec, `${name} ${range}`).toBe(major !== undefined ? `^${major}` : `<${upper ?? '?'}`);
    }
  });

  it('prints the installed version of every one of them', () => {
    const printed = /^peers=\(([^)]*)\)/mu.exec(text('.ci/peers.sh'))?.[1]?.split(/\s+/u);
    expect(new Set(printed?.filter((word) => word !== ''))).toEqual(new Set(Object.keys(ranges)));
  });
});
