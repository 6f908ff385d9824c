import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import {
  AccessDeniedError,
  AuthenticationRequiredError,
  compileExpression,
  SecurityContext,
  SecurityEvents,
  type CompiledExpression,
} from '../../src/index.js';
import { createGuards, permitAll, preAuthorize } from '../../src/trpc/index.js';
import { mockUser } from '../../src/testing/index.js';
import { t } from './fixture.js';

const alice = mockUser('alice');
const admin = mockUser('root', { roles: ['ADMIN'] });

async function errorOf(call: Promise<unknown>): Promise<TRPCError> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(TRPCError);
    return error as TRPCError;
  }
  throw new Error('the call succeeded');
}

describe('guards called in process (createCaller)', () => {
  it('permitAll fills the SecurityContext with the caller or null', async () => {
    const router = t.router({
      who: t.procedure
        .use(permitAll())
        .query(() => SecurityContext.getUser()?.username ?? 'anonymous'),
    });
    expect(await router.createCaller({ user: alice }).who()).toBe('alice');
    expect(await router.createCaller({ user: null }).who()).toBe('anonymous');
  });

  it('securityContext: false leaves the SecurityContext alone and still guards', async () => {
    const lean = createGuards({ securityContext: false });
    const seen = (where: string) => `${where}:${SecurityContext.getUser()?.username ?? 'none'}`;
    const router = t.router({
      secured: t.procedure
        .use(lean.secured('USER'))
        .query(({ ctx }) => `${seen('secured')}:${ctx.user.username}`),
      open: t.procedure
        .use(lean.permitAll())
        .query(({ ctx }) => `${seen('open')}:${String(ctx.user?.username)}`),
      admin: t.procedure.use(lean.secured('ADMIN')).query(() => 'ok'),
    });
    expect(await router.createCaller({ user: alice }).secured()).toBe('secured:none:alice');
    expect(await router.createCaller({ user: alice }).open()).toBe('open:none:alice');
    expect((await errorOf(router.createCaller({ user: alice }).admin())).code).toBe('FORBIDDEN');
    expect((await errorOf(router.createCaller({ user: null }).secured())).code).toBe(
      'UNAUTHORIZED',
    );
    // The default guards fill it.
    const filled = t.router({
      secured: t.procedure.use(createGuards().secured('USER')).query(() => seen('secured')),
    });
    expect(await filled.createCaller({ user: alice }).secured()).toBe('secured:alice');
  });

  it('explains denials to the server with portcullis errors as causes', async () => {
    const router = t.router({
      admin: t.procedure.use(preAuthorize("hasRole('ADMIN')")).query(() => 'ok'),
    });
    const forbidden = await errorOf(router.createCaller({ user: alice }).admin());
    expect(forbidden.code).toBe('FORBIDDEN');
    expect(forbidden.cause).toBeInstanceOf(AccessDeniedError);
    expect((forbidden.cause as AccessDeniedError).code).toBe('ERR_ACCESS_DENIED');
    expect((forbidden.cause as AccessDeniedError).rule).toBe("hasRole('ADMIN')");
    const unauthorized = await errorOf(router.createCaller({ user: null }).admin());
    expect(unauthorized.code).toBe('UNAUTHORIZED');
    expect((unauthorized.cause as AuthenticationRequiredError).code).toBe(
      'ERR_AUTHENTICATION_REQUIRED',
    );
  });

  // Regression: compileExpression once answered an async expression that decides
  // without calling its function with a shared frozen promise; `.then` on it was fatal
  // to the process once AsyncLocalStorage had enabled Node's promise hooks.
  it('survives an async rule that decides synchronously after the SecurityContext ran', async () => {
    SecurityContext.run(alice, () => undefined);
    const rule = compileExpression("hasRole('ADMIN') or slow()", {
      functions: { slow: { params: [], async: true, call: () => Promise.resolve(false) } },
    });
    const denyFirst = compileExpression("hasRole('NOBODY') and slow()", {
      functions: { slow: { params: [], async: true, call: () => Promise.resolve(true) } },
    });
    const router = t.router({
      either: t.procedure.use(preAuthorize(rule)).query(() => 'ok'),
      both: t.procedure.use(preAuthorize(denyFirst)).query(() => 'ok'),
    });
    expect(await router.createCaller({ user: admin }).either()).toBe('ok');
    expect((await errorOf(router.createCaller({ user: alice }).either())).code).toBe('FORBIDDEN');
    expect((await errorOf(router.createCaller({ user: admin }).both())).code).toBe('FORBIDDEN');
  });

  it('denies (FORBIDDEN) when a hand-made compiled expression throws or rejects', async () => {
    const throwing = {
      source: 'custom()',
      usesArgs: false,
      async: false,
      evaluate: () => {
        throw new Error('boom');
      },
    } as unknown as CompiledExpression;
    const rejecting = {
      source: 'custom()',
      usesArgs: false,
      async: true,
      evaluate: () => Promise.reject(new Error('boom')),
    } as unknown as CompiledExpression;
    const router = t.router({
      throwing: t.procedure.use(preAuthorize(throwing)).query(() => 'ok'),
      rejecting: t.procedure.use(preAuthorize(rejecting)).query(() => 'ok'),
    });
    expect((await errorOf(router.createCaller({ user: admin }).throwing())).code).toBe('FORBIDDEN');
    expect((await errorOf(router.createCaller({ user: admin }).rejecting())).code).toBe(
      'FORBIDDEN',
    );
  });

  it('still denies with FORBIDDEN when an event publisher throws', async () => {
    const events = new SecurityEvents();
    events.on('access-denied', () => {
      throw new Error('listener failure');
    });
    const broken = {
      hasListeners: true,
      publish: () => {
        throw new Error('publisher failure');
      },
    } as unknown as SecurityEvents;
    for (const publisher of [events, broken]) {
      const { secured } = createGuards({ events: publisher });
      const router = t.router({ admin: t.procedure.use(secured('ADMIN')).query(() => 'ok') });
      expect((await errorOf(router.createCaller({ user: alice }).admin())).code).toBe('FORBIDDEN');
    }
  });
});
