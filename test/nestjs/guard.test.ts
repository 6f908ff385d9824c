/**
 * The module's guard on its own, for a request the module's middleware did not see
 * (its fallback: it runs the pipeline itself), and for transports without an HTTP
 * request. The applications of the other tests always pass through the middleware.
 */
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { ForbiddenException, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { describe, expect, it } from 'vitest';
import type { AuthenticatedUser, Authenticator } from '../../src/index.js';
import { currentUser, PermitAll, Secured } from '../../src/nestjs/index.js';
import { PortcullisGuard } from '../../src/nestjs/guard.js';
import { resolveNestOptions } from '../../src/nestjs/options.js';
import { HandlerRules } from '../../src/nestjs/rules.js';
import { createTestAuthenticator } from '../support/fixture.js';
import { basic } from '../support/server.js';

@Secured('ADMIN')
class AdminController {
  dashboard(): string {
    return 'dashboard';
  }

  @PermitAll()
  status(): string {
    return 'up';
  }
}

/** A handler of the controller, as Nest hands it to guards (the function itself). */
// eslint-disable-next-line @typescript-eslint/unbound-method -- Nest passes the unbound method
const handlerOf = (name: keyof AdminController): (() => string) => AdminController.prototype[name];

/** The memory authenticator, counting its calls. */
function counting(): { authenticator: Authenticator; calls: () => number } {
  const inner = createTestAuthenticator();
  let calls = 0;
  const authenticator: Authenticator = {
    getUser: (request) => {
      calls++;
      return inner.getUser(request);
    },
  };
  return { authenticator, calls: () => calls };
}

function request(authorization?: string): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = '/admin';
  req.headers = { host: '127.0.0.1', ...(authorization === undefined ? {} : { authorization }) };
  return req;
}

function httpContext(
  req: IncomingMessage,
  handler: keyof AdminController,
  headers: Map<string, unknown>,
): ExecutionContextHost {
  const res = { setHeader: (name: string, value: unknown) => headers.set(name, value) };
  const context = new ExecutionContextHost(
    [req, res, () => undefined],
    AdminController,
    handlerOf(handler),
  );
  context.setType('http');
  return context;
}

function guardOf(authenticator: Authenticator): PortcullisGuard {
  const settings = resolveNestOptions({
    authenticator,
    challenges: ['Basic realm="api", charset="UTF-8"'],
  });
  return new PortcullisGuard(settings, new HandlerRules('authenticated'), new Reflector());
}

describe('the guard without the middleware', () => {
  it('runs the pipeline itself: 401 with the challenge, 403, then the handler', async () => {
    const { authenticator } = counting();
    const guard = guardOf(authenticator);
    const headers = new Map<string, unknown>();
    await expect(
      Promise.resolve().then(() => guard.canActivate(httpContext(request(), 'dashboard', headers))),
    ).rejects.toBeInstanceOf(UnauthorizedException);
    expect(headers.get('www-authenticate')).toBe('Basic realm="api", charset="UTF-8"');
    const asUser = httpContext(request(basic('user', 'user-pw')), 'dashboard', headers);
    await expect(Promise.resolve().then(() => guard.canActivate(asUser))).rejects.toBeInstanceOf(
      ForbiddenException,
    );
    const asAdmin = httpContext(request(basic('admin', 'admin-pw')), 'dashboard', headers);
    expect(await guard.canActivate(asAdmin)).toBe(true);
    expect(currentUser(asAdmin)?.username).toBe('admin');
  });

  it('authenticates a request once, however many guarded calls it makes', async () => {
    const { authenticator, calls } = counting();
    const guard = guardOf(authenticator);
    const req = request(basic('admin', 'admin-pw'));
    const headers = new Map<string, unknown>();
    expect(await guard.canActivate(httpContext(req, 'dashboard', headers))).toBe(true);
    expect(await guard.canActivate(httpContext(req, 'status', headers))).toBe(true);
    expect(calls()).toBe(1);
    const user: AuthenticatedUser | null = currentUser(httpContext(req, 'status', headers));
    expect(user?.roles.has('ADMIN')).toBe(true);
  });
});

describe('the guard on a transport without an HTTP request', () => {
  const rpc = (handler: keyof AdminController) => {
    const context = new ExecutionContextHost([{}, {}], AdminController, handlerOf(handler));
    context.setType('rpc');
    return context;
  };

  it('runs only @PermitAll() handlers, as anonymous', () => {
    const guard = guardOf(counting().authenticator);
    expect(guard.canActivate(rpc('status'))).toBe(true);
    expect(() => guard.canActivate(rpc('dashboard'))).toThrow(UnauthorizedException);
    expect(currentUser(rpc('status'))).toBeNull();
  });
});
