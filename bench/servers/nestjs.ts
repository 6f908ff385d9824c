/**
 * A benchmark server process: a NestJS application on Express answering
 * `GET /posts` with the caller's name, every token an HS256 access token signed with
 * `JWT_SECRET` and carrying `roles` and `authorities` claims. `STACK` chooses the
 * security:
 *
 * - `bare`: none (Nest's own cost);
 * - `handwritten`: the global `CanActivate` guard users write without portcullis:
 *   `jwtVerify` with a pre-imported key, the `USER` role and the `posts:read` authority
 *   checked, `UnauthorizedException` / `ForbiddenException`;
 * - `portcullis`: `PortcullisModule` over portcullis's JWT authenticator (verified-token
 *   cache on, the default) and `@PreAuthorize("hasRole('USER') and hasAuthority('posts:read')")`;
 * - `portcullis-lean`: the same with `securityContext: false` (no AsyncLocalStorage);
 * - `portcullis-no-cache`: the same as `portcullis` with the cache off (one verification
 *   per request, as the hand-written guard).
 *
 * Reports its port over IPC and answers `cpu` messages with its CPU time.
 */
import type { Server } from 'node:http';
import {
  Controller,
  ForbiddenException,
  Get,
  Module,
  Req,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { jwtVerify, type CryptoKey } from 'jose';
import type { AuthenticatedUser } from 'portcullis';
import { JwtAuthenticator, JwtConfig } from 'portcullis/jwt';
import { CurrentUser, PortcullisModule, PreAuthorize } from 'portcullis/nestjs';
import { importHmacKey } from './handwritten-trpc.js';
import { serveForBenchmark } from './serve.js';

const secret = process.env['JWT_SECRET'];
if (secret === undefined) throw new Error('JWT_SECRET is required');
const stack = process.env['STACK'] ?? 'bare';

interface Caller {
  readonly name: string;
}

/** The guard a Nest user writes by hand: verify the bearer token, check the claims. */
class HandwrittenGuard implements CanActivate {
  constructor(private readonly key: CryptoKey) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context
      .switchToHttp()
      .getRequest<{ headers: Record<string, string | undefined>; caller?: Caller }>();
    const header = request.headers['authorization'];
    if (header?.startsWith('Bearer ') !== true) throw new UnauthorizedException();
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(header.slice(7), this.key, {
        algorithms: ['HS256'],
      }));
    } catch {
      throw new UnauthorizedException();
    }
    const { roles, authorities, sub } = claims;
    if (
      !Array.isArray(roles) ||
      !roles.includes('USER') ||
      !Array.isArray(authorities) ||
      !authorities.includes('posts:read')
    ) {
      throw new ForbiddenException();
    }
    request.caller = { name: String(sub) };
    return true;
  }
}

@Controller('posts')
class BareController {
  @Get()
  list(@Req() request: { caller?: Caller }): { username: string } {
    return { username: request.caller?.name ?? 'anonymous' };
  }
}

@Controller('posts')
class PortcullisController {
  @Get()
  @PreAuthorize("hasRole('USER') and hasAuthority('posts:read')")
  list(@CurrentUser() user: AuthenticatedUser): { username: string } {
    return { username: user.username };
  }
}

async function appModule(): Promise<new () => object> {
  if (stack === 'portcullis' || stack === 'portcullis-lean' || stack === 'portcullis-no-cache') {
    const config = new JwtConfig(secret!);
    if (stack === 'portcullis-no-cache') config.cache(false);
    @Module({
      imports: [
        PortcullisModule.forRoot({
          authenticator: new JwtAuthenticator(config),
          challenges: ['Bearer realm="api"'],
          securityContext: stack !== 'portcullis-lean',
        }),
      ],
      controllers: [PortcullisController],
    })
    class PortcullisApp {}
    return PortcullisApp;
  }
  if (stack === 'handwritten') {
    const key = await importHmacKey(secret!);
    @Module({
      controllers: [BareController],
      providers: [{ provide: APP_GUARD, useFactory: () => new HandwrittenGuard(key) }],
    })
    class HandwrittenApp {}
    return HandwrittenApp;
  }
  if (stack === 'bare') {
    @Module({ controllers: [BareController] })
    class BareApp {}
    return BareApp;
  }
  throw new Error(`unknown STACK ${stack}`);
}

const app = await NestFactory.create(await appModule(), { logger: false });
await app.init();
serveForBenchmark(app.getHttpServer() as Server);
