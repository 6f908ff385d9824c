import type { Exchange } from './http-client.js';
import { USERNAMES, type Username } from './credentials.js';

/** A broken invariant. */
export interface Violation {
  readonly invariant: 'no-5xx' | 'no-hang' | 'no-silent-close' | 'identity' | 'one-credential';
  readonly detail: string;
}

const NAMED = [
  /"username"\s*:\s*"([^"\\]*)"/gu, // /api/profile, /trpc/profile, GraphQL profile
  /^username: (.*)$/gmu, // /profile
  /id="username">([^<]*)</gu, // /me
];

const ACCESS_TOKEN =
  /"(?:access_token|refresh_token)"\s*:\s*"([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\./gu;

/** The demo users a response body names: a profile, a page, or the subject of a token in it. */
export function namedUsers(body: string): Set<Username> {
  const names = new Set<Username>();
  const add = (name: string | undefined): void => {
    const user = USERNAMES.find((u) => u === name);
    if (user !== undefined) names.add(user);
  };
  for (const pattern of NAMED) for (const match of body.matchAll(pattern)) add(match[1]);
  for (const match of body.matchAll(ACCESS_TOKEN)) {
    try {
      const claims = JSON.parse(Buffer.from(match[2] ?? '', 'base64url').toString('utf8')) as {
        sub?: unknown;
      };
      add(typeof claims.sub === 'string' ? claims.sub : undefined);
    } catch {
      add('(unreadable token)');
    }
  }
  return names;
}

/**
 * The invariants of one exchange: an answer (no 5xx) within the timeout, never a
 * connection closed without an answer, a body naming only users whose own
 * credential the request carried verbatim, and none at all when the request had
 * more than one `Authorization` line.
 */
export function check(
  result: Exchange,
  carried: ReadonlySet<Username>,
  timeoutMs: number,
  mayCloseSilently = false,
  credentialLines = 0,
): Violation[] {
  if (result.kind === 'timeout') {
    return [{ invariant: 'no-hang', detail: `no complete answer within ${timeoutMs} ms` }];
  }
  if (result.kind === 'closed') {
    if (mayCloseSilently) return [];
    return [
      {
        invariant: 'no-silent-close',
        detail: `connection closed without an answer${result.error ? ` (${result.error})` : ''}`,
      },
    ];
  }
  const { status, body } = result.response;
  const violations: Violation[] = [];
  if (status >= 500 || status < 100) {
    violations.push({ invariant: 'no-5xx', detail: `status ${status}: ${preview(body)}` });
  }
  const named = namedUsers(body.toString('utf8'));
  for (const name of named) {
    if (credentialLines > 1) {
      violations.push({
        invariant: 'one-credential',
        detail: `the answer (status ${status}) names ${name} although the request had ${credentialLines} Authorization lines: ${preview(body)}`,
      });
    } else if (!carried.has(name)) {
      violations.push({
        invariant: 'identity',
        detail: `the answer (status ${status}) names ${name}, whose credential the request did not carry verbatim: ${preview(body)}`,
      });
    }
  }
  return violations;
}

function preview(body: Buffer): string {
  const text = body.toString('utf8').replaceAll(/[^\x20-\x7e]/gu, '.');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
