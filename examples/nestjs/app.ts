/**
 * The example application on NestJS: SPEC.md's routes as controllers, secured by
 * portcullis's decorators (`portcullis/nestjs`), with the demo users over HTTP Basic
 * (Argon2id behind a delegating encoder), on Express or on Fastify.
 *
 *   node --import tsx examples/nestjs/main.ts            # Express, http://127.0.0.1:3000
 *   NEST_PLATFORM=fastify node --import tsx examples/nestjs/main.ts
 *
 * Decorators need `"experimentalDecorators": true` in the tsconfig (as every Nest
 * application has); portcullis's own code needs no decorator setting.
 */
import { Controller, Get, Module, Param, Post, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import {
  AuthenticationManager,
  User,
  type AuthenticatedUser,
  type Authenticator,
} from 'portcullis';
import { createDelegatingPasswordEncoder } from 'portcullis/argon2';
import {
  CurrentUser,
  PermitAll,
  PortcullisModule,
  PreAuthorize,
  RolesAllowed,
  Secured,
} from 'portcullis/nestjs';
import { DEMO_USERS } from '../app.js';

/** The demo users (`user`, `writer`, `admin`, `guest`), their passwords Argon2id-encoded now. */
export async function demoAuthenticator(): Promise<Authenticator> {
  const encoder = createDelegatingPasswordEncoder();
  let authenticator = AuthenticationManager.inMemoryAuthentication().passwordEncoder(encoder);
  for (const { username, password, roles, authorities } of DEMO_USERS) {
    authenticator = authenticator.withUser(
      new User(username, await encoder.encode(password))
        .withRoles([...roles])
        .withAuthorities([...authorities]),
    );
  }
  return authenticator;
}

/** Public pages: the whole controller is `@PermitAll()`. */
@Controller()
@PermitAll()
export class HomeController {
  @Get()
  home(): string {
    return 'Welcome to the portcullis NestJS example. Try /profile with HTTP Basic.\n';
  }

  @Get('health')
  health(): string {
    return 'OK\n';
  }
}

@Controller('profile')
export class ProfileController {
  /** `@CurrentUser()` is the caller; never null behind `@Secured`. */
  @Get()
  @Secured('USER')
  profile(@CurrentUser() user: AuthenticatedUser): string {
    return (
      `username: ${user.username}\nroles: ${[...user.roles].join(', ')}\n` +
      `authorities: ${[...user.authorities].join(', ')}\n`
    );
  }
}

@Controller('posts')
export class PostsController {
  @Get()
  @PreAuthorize("hasRole('USER') and hasAuthority('posts:read')")
  list(): string {
    return 'All posts\n';
  }

  @Post()
  @PreAuthorize({ authority: 'posts:write' })
  create(): string {
    return 'Post created\n';
  }
}

/** Administrators only: the controller's `@Secured('ADMIN')` covers every handler… */
@Controller('admin')
@Secured('ADMIN')
export class AdminController {
  @Get()
  area(): string {
    return 'Admin area\n';
  }

  @Get('dashboard')
  dashboard(): string {
    return 'Admin dashboard\n';
  }

  /** …but a handler's own decorator wins: creating users also needs `users:write`. */
  @Post('users')
  @PreAuthorize("hasRole('ADMIN') and hasAuthority('users:write')")
  createUser(): string {
    return 'User created\n';
  }
}

@Controller('api')
@RolesAllowed('USER')
export class ApiController {
  @Get('data')
  data(): { data: number[] } {
    return { data: [1, 2, 3] };
  }

  @Get('profile')
  profile(@CurrentUser() user: AuthenticatedUser): { username: string; roles: string[] } {
    return { username: user.username, roles: [...user.roles] };
  }

  /** An ownership rule: `args` holds the route params (and the query and body). */
  @Get('users/:username')
  @PreAuthorize("hasRole('ADMIN') or args.username == principal.username")
  account(
    @Param('username') username: string,
    @CurrentUser() user: AuthenticatedUser,
  ): { username: string; viewer: string } {
    return { username, viewer: user.username };
  }
}

/** The application module: the options from a factory (`forRootAsync`), as from a `ConfigService`. */
@Module({
  imports: [
    PortcullisModule.forRootAsync({
      useFactory: async () => ({
        authenticator: await demoAuthenticator(),
        // What a 401 announces (RFC 7617): the client may answer with HTTP Basic.
        challenges: ['Basic realm="Restricted", charset="UTF-8"'],
      }),
    }),
  ],
  controllers: [HomeController, ProfileController, PostsController, AdminController, ApiController],
})
export class AppModule {}

/** The Nest platforms the example runs on. */
export type Platform = 'express' | 'fastify';

/** The application on a platform, initialised (not listening); `logger: false` keeps Nest quiet. */
export async function createNestApp(
  platform: Platform = 'express',
  options: { readonly logger?: false } = {},
): Promise<INestApplication> {
  const app =
    platform === 'fastify'
      ? await NestFactory.create(AppModule, new FastifyAdapter(), options)
      : await NestFactory.create(AppModule, options);
  await app.init();
  return app;
}
