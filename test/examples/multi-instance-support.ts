// Instances of the example server (`node --import tsx examples/server.ts`) as child
// processes on 127.0.0.1, for the multi-instance tests: each on a free port, its
// output kept, killed by the test that started it.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { basic } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TIMEOUT_MS = 5_000;

/** A running example server. */
export interface Instance {
  readonly name: string;
  readonly origin: string;
  /** Everything it printed so far. */
  readonly output: string[];
  /** SIGTERM (a clean shutdown), SIGKILL after 5 s; resolves on exit. */
  stop(): Promise<void>;
}

/** Starts one instance with `env` (besides PATH and HOME) and waits for its "listening" line. */
export async function startInstance(name: string, env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${name} did not start in 30 s:\n${output.join('')}`));
    }, 30_000);
    const read = (chunk: Buffer): void => {
      output.push(chunk.toString('utf8'));
      const text = output.join('');
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/u.exec(text);
      // The line after it says where the state is.
      if (match?.[1] !== undefined && /Users and security state [^\n]*\n/u.test(text)) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}):\n${output.join('')}`));
    });
  });
  return { name, origin, output, stop: () => stopChild(child) };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** A request to an instance, answered within 5 s or failed (no hang). */
export function call(
  instance: Instance,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Response> {
  return fetch(`${instance.origin}${path}`, {
    ...init,
    redirect: 'manual',
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
}

/** A JSON POST to an instance. */
export function postJson(
  instance: Instance,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return call(instance, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** What a same-origin browser request to `instance` sends (the CSRF check wants it). */
export const sameOrigin = (instance: Instance): Record<string, string> => ({
  origin: instance.origin,
  'sec-fetch-site': 'same-origin',
});

/** `name=value` of the first `Set-Cookie`. */
function cookieOf(response: Response): string {
  const header = response.headers.getSetCookie()[0] ?? '';
  return header.split(';', 1)[0] ?? '';
}

/** Logs `username` in through the login form of `instance`: the session cookie. */
export async function logIn(
  instance: Instance,
  username: string,
  password = `${username}-password`,
): Promise<string> {
  const page = await call(instance, '/login', { headers: { accept: 'text/html' } });
  expect(page.status).toBe(200);
  const token = /name="_csrf" value="([^"]*)"/u.exec(await page.text())?.[1] ?? '';
  const response = await call(instance, '/login', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: cookieOf(page),
      ...sameOrigin(instance),
    },
    body: new URLSearchParams({ username, password, _csrf: token }).toString(),
  });
  expect(response.status).toBe(303);
  return cookieOf(response);
}

/** The status of `GET /api/profile` with these headers (a route for any USER). */
export async function profileStatus(
  instance: Instance,
  headers: Record<string, string>,
): Promise<number> {
  const response = await call(instance, '/api/profile', { headers });
  await response.arrayBuffer();
  return response.status;
}

/** Statuses of `GET /api/profile` on each instance, by name. */
export async function statusesOn(
  instances: readonly Instance[],
  headers: Record<string, string>,
): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  for (const instance of instances)
    statuses[instance.name] = await profileStatus(instance, headers);
  return statuses;
}

/** The same status on every instance, by name. */
export const everywhere = (
  instances: readonly Instance[],
  status: number,
): Record<string, number> =>
  Object.fromEntries(instances.map((instance) => [instance.name, status]));

/** `Authorization` headers. */
export const basicAuth = (username: string, password: string): Record<string, string> => ({
  authorization: basic(username, password),
});
export const bearer = (token: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
});

/** An RFC 6749 token response. */
export interface TokenBody {
  readonly access_token: string;
  readonly refresh_token: string;
}
