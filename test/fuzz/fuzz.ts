import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { carriedUsers, obtainCredentials, redact, type Credentials } from './credentials.js';
import { RequestGenerator } from './generate.js';
import { exchange } from './http-client.js';
import { check, type Violation } from './invariants.js';
import { Random } from './random.js';

/** Options of {@link runFuzz}. */
export interface FuzzOptions {
  /** The seed of the request generator. @defaultValue `1` */
  readonly seed?: number;
  /** Stop after this many milliseconds. @defaultValue `30_000` */
  readonly durationMs?: number;
  /** Stop after this many requests. @defaultValue unbounded (the duration decides) */
  readonly requests?: number;
  /** Requests in flight at once. @defaultValue `8` */
  readonly concurrency?: number;
  /** Longest wait for a complete answer. @defaultValue `10_000` */
  readonly timeoutMs?: number;
  /** Keep at most this many violations in the report. @defaultValue `50` */
  readonly maxViolations?: number;
  /** Progress lines (every 10 s). @defaultValue none */
  readonly log?: (line: string) => void;
}

/** A violation with what reproduces it. */
export interface ReportedViolation extends Violation {
  /** The index of the request in the seeded sequence. */
  readonly index: number;
  readonly kind: string;
  /** The raw request, credentials replaced by `<basic:user>`, `<access-token:admin>`, … */
  readonly request: string;
}

/** What a run found. */
export interface FuzzReport {
  readonly seed: number;
  readonly requests: number;
  readonly durationMs: number;
  /** Responses by status class (`2xx`, …), plus `timeout` and `closed`. */
  readonly statusClasses: Readonly<Record<string, number>>;
  /** Requests by generator kind. */
  readonly kinds: Readonly<Record<string, number>>;
  readonly violationCount: number;
  readonly violations: readonly ReportedViolation[];
  /** What the server wrote on its standard error (a crash, a stack). */
  readonly serverStderr: string;
  /** Whether the server process died during the run. */
  readonly serverDied: boolean;
}

const TARGET = fileURLToPath(new URL('./target.ts', import.meta.url));

/**
 * Fuzzes the example server (started in a child process on 127.0.0.1, killed at
 * the end) with seeded raw HTTP requests over sockets and checks every answer.
 */
export async function runFuzz(options: FuzzOptions = {}): Promise<FuzzReport> {
  const seed = options.seed ?? 1;
  const durationMs = options.durationMs ?? 30_000;
  const limit = options.requests ?? Number.POSITIVE_INFINITY;
  const concurrency = options.concurrency ?? 8;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxViolations = options.maxViolations ?? 50;
  const { child, port } = await startTarget();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 100_000) stderr += chunk.toString('utf8');
  });
  const server = { died: false };
  child.once('exit', () => {
    server.died = true;
  });
  try {
    const origin = `http://127.0.0.1:${port}`;
    const credentials = await obtainCredentials(origin);
    const generator = new RequestGenerator(new Random(seed), credentials, `127.0.0.1:${port}`);
    const statusClasses: Record<string, number> = {};
    const kinds: Record<string, number> = {};
    const violations: ReportedViolation[] = [];
    let violationCount = 0;
    let sent = 0;
    const started = performance.now();
    const deadline = started + durationMs;
    let lastLog = started;
    const worker = async (): Promise<void> => {
      while (!server.died && sent < limit && performance.now() < deadline) {
        const index = sent++;
        const request = generator.next();
        kinds[request.kind] = (kinds[request.kind] ?? 0) + 1;
        const raw = request.raw.toString('latin1');
        const carried = carriedUsers(raw, credentials);
        const result = await exchange(port, request.raw, timeoutMs, request.head);
        const bucket =
          result.kind === 'response'
            ? `${Math.floor(result.response.status / 100)}xx`
            : result.kind;
        statusClasses[bucket] = (statusClasses[bucket] ?? 0) + 1;
        for (const violation of check(
          result,
          carried,
          timeoutMs,
          request.mayCloseSilently,
          authorizationLines(raw),
        )) {
          violationCount++;
          if (violations.length < maxViolations) {
            violations.push({
              ...violation,
              detail: redact(violation.detail, credentials),
              index,
              kind: request.kind,
              request: redact(raw, credentials),
            });
          }
        }
        const now = performance.now();
        if (options.log && now - lastLog > 10_000) {
          lastLog = now;
          options.log(
            `${Math.round((now - started) / 1000)} s: ${sent} requests, ${violationCount} violations`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return {
      seed,
      requests: sent,
      durationMs: Math.round(performance.now() - started),
      statusClasses,
      kinds,
      violationCount: violationCount + (server.died ? 1 : 0),
      violations,
      serverStderr: redactAll(stderr, credentials),
      serverDied: server.died,
    };
  } finally {
    await stopTarget(child);
  }
}

function redactAll(text: string, credentials: Credentials): string {
  return redact(text, credentials);
}

async function startTarget(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', TARGET], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: process.env['NODE_ENV'] ?? 'development' },
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error('the example server did not start within 60 s'));
      }, 60_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the example server exited (${code})`));
      });
      lines.once('line', (line) => {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      });
    });
    return { child, port };
  } catch (error) {
    await stopTarget(child);
    throw error;
  }
}

async function stopTarget(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** How many `Authorization` field lines the raw request has. */
function authorizationLines(raw: string): number {
  const end = raw.indexOf('\r\n\r\n');
  return (raw.slice(0, end < 0 ? raw.length : end).match(/\r\nauthorization:/giu) ?? []).length;
}
