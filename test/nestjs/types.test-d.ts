import type { DynamicModule, ExecutionContext } from '@nestjs/common';
import { describe, expectTypeOf, it } from 'vitest';
import { compileExpression, type AuthenticatedUser, type Authenticator } from '../../src/index.js';
import {
  CurrentUser,
  DenyAll,
  PermitAll,
  PortcullisModule,
  PreAuthorize,
  RolesAllowed,
  Secured,
  currentUser,
  type PortcullisModuleOptions,
  type SecurityDecorator,
} from '../../src/nestjs/index.js';

declare const authenticator: Authenticator;

describe('portcullis/nestjs types', () => {
  it('types the caller @CurrentUser() gives: an AuthenticatedUser, or null', () => {
    expectTypeOf(CurrentUser).returns.toEqualTypeOf<ParameterDecorator>();
    expectTypeOf(currentUser).parameter(0).toEqualTypeOf<ExecutionContext>();
    expectTypeOf(currentUser).returns.toEqualTypeOf<AuthenticatedUser | null>();
  });

  it('makes each decorator fit a controller and a handler', () => {
    expectTypeOf(Secured('ADMIN')).toEqualTypeOf<SecurityDecorator>();
    expectTypeOf(Secured('ADMIN')).toExtend<ClassDecorator & MethodDecorator>();
    expectTypeOf(RolesAllowed('ADMIN', 'USER')).toExtend<ClassDecorator & MethodDecorator>();
    expectTypeOf(PermitAll()).toExtend<ClassDecorator & MethodDecorator>();
    expectTypeOf(DenyAll()).toExtend<ClassDecorator & MethodDecorator>();
  });

  it('checks expression literals and the rights form with tsc', () => {
    expectTypeOf(
      PreAuthorize("hasRole('USER') and hasAuthority('posts:read')"),
    ).toEqualTypeOf<SecurityDecorator>();
    PreAuthorize({ authority: 'posts:write' });
    PreAuthorize({ role: ['ADMIN', 'OPS'], authority: 'users:write' });
    PreAuthorize(compileExpression('isAuthenticated()'));
    // @ts-expect-error -- a misspelt function
    PreAuthorize("hasRol('USER')");
    // @ts-expect-error -- an unbalanced parenthesis
    PreAuthorize("hasRole('USER'");
    // @ts-expect-error -- not a key of { role, authority }
    PreAuthorize({ authorty: 'posts:write' });
    // @ts-expect-error -- at least one role
    Secured();
    // @ts-expect-error -- at least one role
    RolesAllowed();
  });

  it('needs an authenticator, and types the options', () => {
    expectTypeOf(PortcullisModule.forRoot({ authenticator })).toEqualTypeOf<DynamicModule>();
    // @ts-expect-error -- no authenticator
    PortcullisModule.forRoot({});
    // @ts-expect-error -- not a policy
    PortcullisModule.forRoot({ authenticator, defaultPolicy: 'deny' });
    expectTypeOf<PortcullisModuleOptions['strict']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf(
      PortcullisModule.forRootAsync({
        inject: ['CONFIG'],
        useFactory: (config: { secret: string }) => ({
          authenticator,
          debug: config.secret === '',
        }),
      }),
    ).toEqualTypeOf<DynamicModule>();
  });
});
