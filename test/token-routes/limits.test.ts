import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securityRoutes as fetchRoutes } from '../../src/fetch/index.js';
import { bodyOf, endpointsOf, JSON_TYPE, makeFixture, mount, type Harness } from './support.js';

/**
 * Sends the head of a POST and then `chunks` one after the other (never the end of
 * the body), and resolves with the response head as soon as it arrives: a server
 * that waited for the whole body would never answer (the 5 s guard fails the test).
 * `written` counts the body bytes sent before the answer came.
 */
async function answerBeforeBodyEnds(
  origin: string,
  head: Record<string, string>,
  chunks: Iterable<Buffer>,
): Promise<{ head: string; written: number }> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    let written = 0;
    let answered = false;
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer before the body ended'));
    }, 5000);
    socket.on('error', (error) => {
      if (!answered) reject(error);
    });
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      if (!answered && received.includes('\r\n\r\n')) {
        answered = true;
        clearTimeout(guard);
        socket.destroy();
        resolve({ head: received.slice(0, received.indexOf('\r\n\r\n')), written });
      }
    });
    socket.on('connect', () => {
      const lines = Object.entries({ host: url.host, ...head }).map(([k, v]) => `${k}: ${v}`);
      socket.write(`POST /auth/login HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
      const iterator: Iterator<Buffer, unknown> = chunks[Symbol.iterator]();
      const next = (): void => {
        if (answered) return;
        const step = iterator.next();
        if (step.done === true) return; // the body never ends
        written += step.value.length;
        socket.write(step.value, () => setImmediate(next));
      };
      next();
    });
  });
}

function* repeat(chunk: Buffer, times: number): Generator<Buffer> {
  for (let i = 0; i < times; i++) yield chunk;
}

describe.each(['node', 'fastify'] as const)('bodies over maxBodyBytes (%s)', (kind) => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await mount(kind, endpointsOf(makeFixture()));
  });
  afterAll(() => harness.close());

  it('a declared 64 MiB body is refused with 413 before its first byte is read', async () => {
    const { head, written } = await answerBeforeBodyEnds(
      harness.origin!,
      { 'content-type': JSON_TYPE, 'content-length': String(64 * 1024 * 1024) },
      repeat(Buffer.alloc(1024, 0x20), 64 * 1024),
    );
    expect(head).toMatch(/^HTTP\/1\.1 413 /u);
    expect(head.toLowerCase()).toContain('connection: close');
    expect(written).toBeLessThan(1024 * 1024); // answered long before the 64 MiB
  });

  it('a chunked body without a length is cut at 8 KiB with 413', async () => {
    const chunk = Buffer.from(`400\r\n${' '.repeat(1024)}\r\n`, 'latin1');
    const { head, written } = await answerBeforeBodyEnds(
      harness.origin!,
      { 'content-type': JSON_TYPE, 'transfer-encoding': 'chunked' },
      repeat(chunk, 64 * 1024), // 64 MiB if it were all sent
    );
    expect(head).toMatch(/^HTTP\/1\.1 413 /u);
    expect(written).toBeLessThan(1024 * 1024);
  });

  it('a client that goes away mid-body does not break the server', async () => {
    const url = new URL(harness.origin!);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
            'Content-Length: 1000\r\n\r\n{"username":"al',
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 20);
      });
      socket.on('error', reject);
    });
    // Still serving (an unhandled rejection would also fail this file).
    const reply = await harness.send('/auth/login', {
      headers: { 'content-type': JSON_TYPE },
      body: JSON.stringify({ username: 'alice', password: 'alice-pw' }),
    });
    expect(reply.status).toBe(200);
  });

  it('answers 413 as an RFC 6749 error, and a body at the limit is read', async () => {
    const big = await harness.send('/auth/login', {
      headers: { 'content-type': JSON_TYPE },
      body: JSON.stringify({ username: 'alice', password: 'x'.repeat(9000) }),
    });
    expect(big.status).toBe(413);
    expect(bodyOf(big)).toEqual({
      error: 'invalid_request',
      error_description: 'The request body is too large',
    });
    const padded = JSON.stringify({ username: 'alice', password: 'alice-pw' });
    const atLimit = await harness.send('/auth/login', {
      headers: { 'content-type': JSON_TYPE },
      body: padded + ' '.repeat(8192 - padded.length),
    });
    expect(atLimit.status).toBe(200);
  });
});

describe('bodies over maxBodyBytes (fetch)', () => {
  const endpoints = endpointsOf(makeFixture());

  it('an endless streamed body is cut at the limit (413), not read to the end', async () => {
    let pulls = 0;
    const chunk = new TextEncoder().encode(' '.repeat(1024));
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(chunk);
      },
    });
    const response = await fetchRoutes(endpoints)(
      new Request('http://127.0.0.1/auth/login', {
        method: 'POST',
        headers: { 'content-type': JSON_TYPE },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response?.status).toBe(413);
    expect(pulls).toBeLessThan(20); // 8 KiB: a few chunks past it at most
  });

  it('a declared Content-Length over the limit is refused before reading', async () => {
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const response = await fetchRoutes(endpoints)(
      new Request('http://127.0.0.1/auth/refresh', {
        method: 'POST',
        headers: { 'content-type': JSON_TYPE, 'content-length': '99999999' },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response?.status).toBe(413);
    expect(pulls).toBeLessThanOrEqual(1);
  });
});
