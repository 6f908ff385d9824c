/**
 * `GET /api/profile` with a bearer token (HS256) on node `http`, Express and Fastify:
 * each framework bare, with the security libraries users pick today (helmet +
 * express-jwt, @fastify/helmet + @fastify/jwt with its cache) and with portcullis
 * (JWT with its cache, 100 URL rules, security headers; the firewall on node `http`
 * and in the adapters). One server process per stack (bench/servers/stacks.ts), all
 * loaded in alternating rounds; before each window a valid token must get 200 and
 * no token or a forged one 401.
 */
import { randomBytes } from 'node:crypto';
import { User } from 'portcullis';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { expectStatus, type HttpOptions } from './http.js';
import { fmt, load, startServer, type LoadResult, type ServerProcess } from './lib.js';
import type { OverheadBar } from './report.js';

interface Stack {
  readonly id: string;
  readonly name: string;
  /** The id of the same framework's bare stack. */
  readonly bare: string;
  readonly portcullis: boolean;
}

const STACKS: readonly Stack[] = [
  { id: 'node-bare', name: 'node http bare', bare: 'node-bare', portcullis: false },
  {
    id: 'node-portcullis',
    name: 'node http + portcullis full pipeline (firewall, JWT cached, 100 rules, headers)',
    bare: 'node-bare',
    portcullis: true,
  },
  { id: 'express-bare', name: 'express bare', bare: 'express-bare', portcullis: false },
  {
    id: 'express-helmet-jwt',
    name: 'express + helmet + express-jwt',
    bare: 'express-bare',
    portcullis: false,
  },
  {
    id: 'express-portcullis',
    name: 'express + portcullis (security(), JWT cached, 100 rules, headers)',
    bare: 'express-bare',
    portcullis: true,
  },
  { id: 'fastify-bare', name: 'fastify bare', bare: 'fastify-bare', portcullis: false },
  {
    id: 'fastify-helmet-jwt',
    name: 'fastify + @fastify/helmet + @fastify/jwt (cache on)',
    bare: 'fastify-bare',
    portcullis: false,
  },
  {
    id: 'fastify-portcullis',
    name: 'fastify + portcullis plugins (JWT cached, 100 rules, headers)',
    bare: 'fastify-bare',
    portcullis: true,
  },
];

const PATH = '/api/profile';

export interface StackRow {
  readonly stack: Stack;
  readonly best: LoadResult;
}

export async function benchStacks(options: HttpOptions): Promise<StackRow[]> {
  const secret = randomBytes(32).toString('base64url');
  const user = new User('alice', '', ['USER'], ['posts:read']);
  const token = await new JwtAuthenticator(new JwtConfig(secret)).generateToken(user);
  const forged = await new JwtAuthenticator(new JwtConfig(randomBytes(32))).generateToken(user);
  const valid = { authorization: `Bearer ${token}` };
  const servers = new Map<Stack, ServerProcess>();
  try {
    for (const stack of STACKS) {
      servers.set(
        stack,
        await startServer('./servers/stacks.js', { STACK: stack.id, JWT_SECRET: secret }),
      );
    }
    for (const [, server] of servers) await load(server, PATH, valid, options.warmup);
    const best = new Map<Stack, LoadResult>();
    for (let round = 0; round < options.rounds; round++) {
      for (const [stack, server] of servers) {
        const url = `${server.origin}${PATH}`;
        await expectStatus(url, valid, 200);
        if (stack.bare !== stack.id) {
          // Prove security is on before each measured window.
          await expectStatus(url, {}, 401);
          await expectStatus(url, { authorization: `Bearer ${forged}` }, 401);
        }
        const result = await load(server, PATH, valid, options.seconds);
        if (result.non2xx > 0 || result.errors > 0) {
          throw new Error(
            `${stack.name}: ${String(result.non2xx)} non-2xx and ${String(result.errors)} errors under load`,
          );
        }
        const current = best.get(stack);
        if (!current || result.rps > current.rps) best.set(stack, result);
      }
    }
    return STACKS.map((stack) => ({ stack, best: best.get(stack)! }));
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
}

function overheads(rows: readonly StackRow[]): Map<string, number> {
  const cpu = new Map(rows.map((row) => [row.stack.id, row.best.cpuPerRequestMicros]));
  return new Map(
    rows.map((row) => [row.stack.id, row.best.cpuPerRequestMicros - cpu.get(row.stack.bare)!]),
  );
}

/** The bars of bench/overhead.svg: each secured stack's overhead over its bare framework. */
export function stackBars(rows: readonly StackRow[]): OverheadBar[] {
  const overhead = overheads(rows);
  return rows
    .filter((row) => row.stack.bare !== row.stack.id)
    .map((row) => ({
      name: row.stack.name.replace(/ \(.*\)$/u, ''),
      micros: overhead.get(row.stack.id)!,
      portcullis: row.stack.portcullis,
    }));
}

export function printStacks(rows: readonly StackRow[]): void {
  const overhead = overheads(rows);
  const rps = new Map(rows.map((row) => [row.stack.id, row.best.rps]));
  console.log(`\n## GET ${PATH} with a bearer token (HS256) per HTTP stack (best of the rounds)\n`);
  console.log(
    '| stack | req/s | vs bare | p99 ms | server CPU µs/req | overhead over bare, µs/req |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const { stack, best } of rows) {
    const bare = stack.bare === stack.id;
    console.log(
      `| ${stack.name} | ${fmt(best.rps)} | ${fmt(best.rps / rps.get(stack.bare)!, 2)} | ` +
        `${fmt(best.p99)} | ${fmt(best.cpuPerRequestMicros, 1)} | ` +
        `${bare ? '–' : fmt(overhead.get(stack.id)!, 1)} |`,
    );
  }
  const ours = overhead.get('node-portcullis')!;
  const express = overhead.get('express-helmet-jwt')!;
  const fastify = overhead.get('fastify-helmet-jwt')!;
  const verdict = (ok: boolean, by: string) => (ok ? 'achieved' : `not achieved (${by})`);
  console.log('');
  console.log(
    `- portcullis full pipeline overhead ${fmt(ours, 1)} µs / express + helmet + express-jwt's ` +
      `${fmt(express, 1)} µs = ${fmt(ours / express, 3)}, goal ≤ 1/4: ` +
      `${verdict(ours <= express / 4, `${fmt(ours - express / 4, 1)} µs over a quarter`)}.`,
  );
  console.log(
    `- portcullis full pipeline overhead ${fmt(ours, 1)} µs vs fastify + @fastify/helmet + ` +
      `@fastify/jwt's ${fmt(fastify, 1)} µs, goal below it: ` +
      `${verdict(ours < fastify, `${fmt(ours - fastify, 1)} µs above`)}.`,
  );
}
