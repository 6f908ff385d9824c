import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Access,
  AuthorizationManager,
  SecurityTransform,
  UnavailableError,
  User,
} from '../../src/index.js';
import { JwtAuthenticator, JwtConfig, JwtTokenService } from '../../src/jwt/index.js';
import {
  NOW,
  SECRET,
  bearer,
  claimsAt,
  keyPairs,
  recordEvents,
  requestWith,
  sign,
} from './support.js';

/**
 * A TCP server on 127.0.0.1 that accepts connections and then either never answers
 * (`silent`) or sends the response headers and never finishes the body (`stall`).
 * Every socket is destroyed when the test closes it.
 */
async function startMuteServer(mode: 'silent' | 'stall'): Promise<{
  url: string;
  accepted: () => number;
  close: () => Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    if (mode === 'stall') {
      socket.once('data', () => {
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 4096\r\n\r\n{"keys":[',
        );
      });
    }
  });
  let accepted = 0;
  server.on('connection', () => {
    accepted += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/.well-known/jwks.json`,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}

let closeServer: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeServer?.();
  closeServer = undefined;
});

async function pipelineAgainst(mode: 'silent' | 'stall') {
  const server = await startMuteServer(mode);
  closeServer = server.close;
  const { events, received } = recordEvents();
  const jwt = new JwtAuthenticator(
    JwtConfig.jwks({ url: server.url, timeoutMs: 200 }).clock(() => NOW),
    { events },
  );
  const transform = new SecurityTransform({ events })
    .configAuthenticator(() => jwt)
    .configAuthorizer(() =>
      AuthorizationManager.requestMatcher().bearer().addMatcher('/api/.*', Access.authenticated()),
    );
  const token = await sign(keyPairs.rsa().privateKey, claimsAt(), { alg: 'RS256', kid: 'k1' });
  return { server, jwt, transform, token, received };
}

describe('a key-set endpoint that accepts the connection and never answers', () => {
  it('fails the request closed with 503 + Retry-After within the JWKS timeout, not 401 and no hang', async () => {
    const { server, transform, token, received } = await pipelineAgainst('silent');
    const started = performance.now();
    const outcome = await transform.handle(requestWith(bearer(token), '/api/me'));
    const elapsed = performance.now() - started;
    expect(server.accepted()).toBe(1);
    expect(outcome.proceed).toBe(false);
    if (outcome.proceed) return;
    expect(outcome.response.status).toBe(503);
    expect(outcome.response.headers['retry-after']).toBe('5');
    expect(outcome.response.headers['www-authenticate']).toBeUndefined();
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(3_000);
    expect(received).toEqual([
      {
        type: 'deadline-exceeded',
        operation: 'jwks',
        timeoutMs: 200,
        request: expect.objectContaining({ path: '/api/me' }) as unknown,
      },
    ]);
    expect(JSON.stringify(received)).not.toContain(token.slice(-20));
  });

  it('fails closed as well when the headers come and the body never finishes', async () => {
    const { transform, token, received } = await pipelineAgainst('stall');
    const outcome = await transform.handle(requestWith(bearer(token), '/api/me'));
    expect(!outcome.proceed && outcome.response.status).toBe(503);
    expect(received).toMatchObject([{ type: 'deadline-exceeded', operation: 'jwks' }]);
  });

  it('rejects authenticate() with a DeadlineExceededError instead of answering anonymous', async () => {
    const { jwt, token } = await pipelineAgainst('silent');
    const error: unknown = await Promise.resolve(jwt.authenticate(requestWith(bearer(token)))).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({
      code: 'ERR_DEADLINE_EXCEEDED',
      operation: 'jwks',
      timeoutMs: 200,
    });
  });
});

describe('a refresh whose loadUser never settles', () => {
  it('rejects with ERR_DEADLINE_EXCEEDED at loadUserTimeoutMs and leaves the refresh token usable', async () => {
    const { events, received } = recordEvents();
    const service = new JwtTokenService(new JwtConfig(SECRET), { events, loadUserTimeoutMs: 100 });
    const alice = new User('alice', '', ['USER']);
    const pair = await service.generateTokenPair(alice);
    const started = performance.now();
    await expect(
      service.refresh(pair.refreshToken, () => new Promise<User>(() => undefined)),
    ).rejects.toMatchObject({ code: 'ERR_DEADLINE_EXCEEDED', operation: 'load-user' });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(received).toContainEqual(
      expect.objectContaining({
        type: 'deadline-exceeded',
        operation: 'load-user',
        timeoutMs: 100,
      }),
    );
    const next = await service.refresh(pair.refreshToken, () => alice);
    expect(typeof next.accessToken).toBe('string');
  });
});
