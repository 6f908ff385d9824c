import { describe, expect, it } from 'vitest';
import { createSecurityRequest, type SecurityRoutes } from '../../src/index.js';
import { answerOf, checkRoutes } from '../../src/http/response.js';

const request = (method: string, url: string) =>
  createSecurityRequest({ method, url, header: () => undefined });

const noBody = () => Promise.resolve(new Uint8Array(0));

/** Routes that answer 200 for every request handed to them, counting the calls. */
function counting(paths: readonly string[], methods?: readonly string[]) {
  const calls: string[] = [];
  const routes: SecurityRoutes = {
    paths,
    ...(methods === undefined ? {} : { methods }),
    handle: (r) => {
      calls.push(`${r.method} ${r.path}`);
      return Promise.resolve({ status: 200, headers: {}, body: '' });
    },
  };
  return { routes, calls };
}

describe('a mount rules out the requests its routes cannot own, before calling them', () => {
  it('literal paths and methods: another path or method costs no call and no promise', async () => {
    const login = counting(['/login'], ['POST']);
    const mounted = checkRoutes([login.routes]);
    expect(answerOf(mounted, request('GET', '/login'), noBody)).toBeUndefined();
    expect(answerOf(mounted, request('POST', '/login/x'), noBody)).toBeUndefined();
    expect(answerOf(mounted, request('POST', '/LOGIN'), noBody)).toBeUndefined();
    expect(login.calls).toEqual([]);
    expect((await answerOf(mounted, request('POST', '/login?continue=/me'), noBody))?.status).toBe(
      200,
    );
    expect(login.calls).toEqual(['POST /login']);
  });

  it('a {variable} stands for one segment, possibly empty (never stricter than the route)', async () => {
    const oauth2 = counting(['/oauth2/authorization/{registrationId}']);
    const mounted = checkRoutes([oauth2.routes]);
    for (const path of ['/oauth2/authorization/github', '/oauth2/authorization/']) {
      expect(await answerOf(mounted, request('GET', path), noBody)).toBeDefined();
    }
    for (const path of ['/oauth2/authorization', '/oauth2/authorization/a/b', '/oauth2/x']) {
      expect(answerOf(mounted, request('GET', path), noBody)).toBeUndefined();
    }
    // Regex syntax in the literal part is literal.
    const dotted = counting(['/v1.0/{id}']);
    const dots = checkRoutes([dotted.routes]);
    expect(answerOf(dots, request('GET', '/v1x0/a'), noBody)).toBeUndefined();
    expect(await answerOf(dots, request('GET', '/v1.0/a'), noBody)).toBeDefined();
  });

  it('other pattern syntax (**) rules nothing out; the first route that answers wins', async () => {
    const wide = counting(['/files/**']);
    const first = counting(['/a']);
    const mounted = checkRoutes([first.routes, wide.routes]);
    expect(await answerOf(mounted, request('GET', '/elsewhere'), noBody)).toBeDefined();
    expect(wide.calls).toEqual(['GET /elsewhere']);
    expect(first.calls).toEqual([]);
  });
});
