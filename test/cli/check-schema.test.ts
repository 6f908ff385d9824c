import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/check-schema.js';
import { securityDirectivesTypeDefs } from '../../src/graphql/index.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portcullis-cli-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

describe('portcullis check-schema', () => {
  it('accepts a good schema, adding the directive definitions itself', async () => {
    const path = await file(
      'good.graphql',
      'type Query { a: Int @secured(roles: "A") b(id: ID): Int @preAuthorize(expr: "args.id == principal.username") c: Int }',
    );
    const result = await cli('check-schema', '--list', path);
    expect(result.status).toBe(0);
    expect(result.out).toContain("Query.a  hasRole('A')  (@secured on Query.a)");
    // Deny by default: `c` has no directive, so it needs an authenticated user.
    expect(result.out).toContain('Query.c  isAuthenticated()  (default policy authenticated)');
    expect(result.out).toContain('ok: 3 protected fields, default policy authenticated');
  });

  it('reports every problem with its file, line and coordinate, and exits 1', async () => {
    const path = await file(
      'bad.graphql',
      `type Query {\n  a: Int @preAuthorize(expr: "hasRole('A') and")\n  b: Int @secured(roles: [])\n}\n`,
    );
    const result = await cli('check-schema', path);
    expect(result.status).toBe(1);
    expect(result.err).toContain('2 problems with the security directives');
    expect(result.err).toContain(`${path}:2:10 Query.a @preAuthorize:`);
    expect(result.err).toContain(
      `${path}:3:10 Query.b @secured: roles must name at least one role`,
    );
  });

  it('reads several files as one schema (type extensions across files)', async () => {
    const base = await file('base.graphql', 'type Query { a: Int }');
    const ext = await file('ext.graphql', 'extend type Query { b: Int @denyAll }');
    const result = await cli('check-schema', '--list', base, ext);
    expect(result.status).toBe(0);
    expect(result.out).toContain('Query.b  denyAll()');
  });

  it('applies the default policy', async () => {
    const path = await file('policy.graphql', 'type Query { a: Int b: Int @permitAll }');
    const result = await cli('check-schema', '--default-policy', 'denyAll', '--list', path);
    expect(result.out).toContain('Query.a  denyAll()  (default policy denyAll)');
    expect(result.out).toContain('ok: 1 protected field, default policy denyAll');
  });

  it('loads custom functions from a module', async () => {
    const schema = await file(
      'custom.graphql',
      'type Query { post(id: ID!): Int @preAuthorize(expr: "isOwner(args.id)") }',
    );
    expect((await cli('check-schema', schema)).status).toBe(1);
    const module = await file(
      'functions.mjs',
      'export const functions = { isOwner: { params: ["reference"], call: () => true } };',
    );
    expect((await cli('check-schema', '--functions', module, schema)).status).toBe(0);
  });

  it('keeps definitions the files bring, and refuses ones that differ', async () => {
    const own = await file(
      'own.graphql',
      `${securityDirectivesTypeDefs}\ntype Query { a: Int @secured(roles: "A") }`,
    );
    expect((await cli('check-schema', own)).status).toBe(0);
    const other = await file(
      'other.graphql',
      'directive @secured(role: String) on FIELD_DEFINITION\ntype Query { a: Int @secured(role: "A") }',
    );
    const result = await cli('check-schema', other);
    expect(result.status).toBe(1);
    expect(result.err).toContain(`${other}:1:1 @secured @secured:`);
    expect(result.err).toContain('other arguments');
  });

  it('reports invalid GraphQL, and skips SDL validation on request', async () => {
    const path = await file(
      'federated.graphql',
      'type Query @key(fields: "id") { id: ID @authenticated }',
    );
    const invalid = await cli('check-schema', path);
    expect(invalid.status).toBe(1);
    expect(invalid.err).toContain('Unknown directive "@key"');
    expect((await cli('check-schema', '--assume-valid-sdl', path)).status).toBe(0);
    const syntax = await file('syntax.graphql', 'type Query {');
    expect((await cli('check-schema', syntax)).status).toBe(2);
  });

  it('answers usage errors with status 2 and the usage', async () => {
    for (const argv of [
      [],
      ['lint'],
      ['check-schema'],
      ['check-schema', '--nope', 'x.graphql'],
      ['check-schema', '--default-policy', 'open', 'x.graphql'],
      ['check-schema', '--functions'],
      ['check-schema', join(dir, 'missing.graphql')],
    ]) {
      const result = await cli(...argv);
      expect(result.status, argv.join(' ')).toBe(2);
      expect(result.err.length).toBeGreaterThan(0);
    }
    const help = await cli('check-schema', '--help');
    expect(help.status).toBe(0);
    expect(help.out).toContain('Usage: portcullis check-schema');
  });

  it('runs as the portcullis command', async () => {
    const path = await file('bin.graphql', 'type Query { a: Int @secured(roles: []) }');
    const bin = join(import.meta.dirname, '../../src/cli/bin.ts');
    const run = promisify(execFile);
    const failure = await run(process.execPath, ['--import', 'tsx', bin, 'check-schema', path], {
      encoding: 'utf8',
    }).then(
      () => undefined,
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain('Query.a @secured');
  });
});

describe('schema-directives/', () => {
  it('ships the same SDL as the exported constant', async () => {
    const shipped = await readFile(
      join(import.meta.dirname, '../../schema-directives/security.graphql'),
      'utf8',
    );
    expect(shipped).toBe(securityDirectivesTypeDefs);
  });
});
