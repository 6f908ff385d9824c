import { describe, expect, it } from 'vitest';
import { ConfigurationError, ExpressionSyntaxError } from '../../src/index.js';
import {
  createGuards,
  createTrpcContext,
  preAuthorize,
  secured,
  securityMeta,
} from '../../src/trpc/index.js';
import { createAuthenticator } from './fixture.js';

function configurationError(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).code).toBe('ERR_INVALID_OPTION');
    return error as ConfigurationError;
  }
  throw new Error('no ConfigurationError');
}

describe('definition-time validation', () => {
  it('compiles preAuthorize expressions when the guard is created', () => {
    const text: string = "hasRole('ADMIN') and hasRoel('X')";
    try {
      preAuthorize(text);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ExpressionSyntaxError);
      expect((error as ExpressionSyntaxError).code).toBe('ERR_EXPRESSION_UNKNOWN_FUNCTION');
    }
  });

  it('refuses path variables, which only URL rules capture', () => {
    const error = configurationError(() => preAuthorize('path.id == principal.username'));
    expect(error.option).toBe('preAuthorize');
    expect(error.message).toContain('path.id');
  });

  it('validates { role, authority }', () => {
    expect(configurationError(() => preAuthorize({ roles: 'ADMIN' } as never)).message).toContain(
      'did you mean "role"',
    );
    expect(configurationError(() => preAuthorize({})).option).toBe('preAuthorize');
    expect(configurationError(() => preAuthorize({ role: '' })).option).toBe('roles');
    expect(configurationError(() => preAuthorize({ authority: [] })).option).toBe('authorities');
    expect(configurationError(() => preAuthorize(42 as never)).option).toBe('preAuthorize');
  });

  it('validates roles', () => {
    expect(configurationError(() => (secured as (...r: string[]) => unknown)()).option).toBe(
      'roles',
    );
    expect(configurationError(() => secured('ADMIN', 'bad\nrole')).option).toBe('roles');
  });

  it('validates guard options, with a hint for typos', () => {
    const error = configurationError(() => createGuards({ debgu: true } as never));
    expect(error.option).toBe('debgu');
    expect(error.message).toContain('did you mean "debug"');
    expect(configurationError(() => createGuards({ debug: 'yes' } as never)).option).toBe('debug');
    expect(configurationError(() => createGuards({ events: {} } as never)).option).toBe('events');
    expect(configurationError(() => createGuards({ securityContext: 'no' } as never)).option).toBe(
      'securityContext',
    );
    expect(configurationError(() => securityMeta({ securityContext: 0 } as never)).option).toBe(
      'securityContext',
    );
  });

  it('validates securityMeta options', () => {
    expect(configurationError(() => securityMeta({ defaultPolicy: 'allow' } as never)).option).toBe(
      'defaultPolicy',
    );
    expect(configurationError(() => securityMeta({ onMissing: 'deny' } as never)).option).toBe(
      'onMissing',
    );
  });

  it("refuses the former 'deny' policy, pointing to 'denyAll' (the GraphQL spelling too)", () => {
    const error = configurationError(() => securityMeta({ defaultPolicy: 'deny' } as never));
    expect(error.option).toBe('defaultPolicy');
    expect(error.message).toBe(
      `defaultPolicy: must be 'permitAll', 'authenticated' or 'denyAll' (did you mean "denyAll"?)`,
    );
    const typo = configurationError(() => securityMeta({ defaultPolicy: 'denyall' } as never));
    expect(typo.message).toContain('(did you mean "denyAll"?)');
    expect(configurationError(() => securityMeta({ defaultPolicy: 1 } as never)).option).toBe(
      'defaultPolicy',
    );
  });

  it('validates createTrpcContext options', () => {
    expect(configurationError(() => createTrpcContext({} as never)).option).toBe('authenticator');
    const authenticator = createAuthenticator();
    expect(
      configurationError(() =>
        createTrpcContext({ authenticator, connectionParams: 'authorization' as never }),
      ).option,
    ).toBe('connectionParams');
    expect(
      configurationError(() =>
        createTrpcContext({
          authenticator,
          dangerouslyAllowConnectionParamsOverHttp: 'yes' as never,
        }),
      ).option,
    ).toBe('dangerouslyAllowConnectionParamsOverHttp');
    expect(
      configurationError(() => createTrpcContext({ authenticator, event: {} } as never)).message,
    ).toBe('event: is not an option of createTrpcContext (did you mean "events"?)');
    expect(
      configurationError(() => createTrpcContext({ authenticator, authenticationTimeoutMs: 0 }))
        .option,
    ).toBe('authenticationTimeoutMs');
    expect(() => createTrpcContext({ authenticator, challenges: ['Basic', 'a\nb'] })).toThrow(
      expect.objectContaining({ option: 'challenges[1]' }),
    );
    expect(
      configurationError(() =>
        createTrpcContext({ authenticator, dangerouslyAllowUnguardedProcedures: 1 as never }),
      ).option,
    ).toBe('dangerouslyAllowUnguardedProcedures');
  });

  it('never mutates the caller options', () => {
    const options = Object.freeze({ debug: true });
    createGuards(options).secured('ADMIN');
    const metaOptions = Object.freeze({ defaultPolicy: 'authenticated' as const });
    securityMeta(metaOptions);
    expect(options).toEqual({ debug: true });
    expect(metaOptions).toEqual({ defaultPolicy: 'authenticated' });
  });
});
