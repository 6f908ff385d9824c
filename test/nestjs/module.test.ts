/**
 * portcullis/nestjs with @nestjs/testing, over real HTTP on 127.0.0.1, on both Nest
 * platforms: class vs method decorators, the default policy, `args`, the
 * SecurityContext, events, start-up failures (a bad expression, strict mode, bad
 * options) and URL rules before the decorators.
 */
import {
  Body,
  Controller,
  Get,
  Post,
  Put,
  Query,
  Req,
  type INestApplication,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  Access,
  AuthorizationManager,
  ConfigurationError,
  Outcome,
  UnavailableError,
  type AuthenticationOutcome,
  type Authenticator,
  ExpressionSyntaxError,
  SecurityContext,
  SecurityEvents,
  type AuthenticatedUser,
  type SecurityEvent,
} from '../../src/index.js';
import {
  Authenticated,
  CurrentUser,
  DenyAll,
  PermitAll,
  PortcullisModule,
  PreAuthorize,
  RolesAllowed,
  Secured,
  type PortcullisModuleOptions,
} from '../../src/nestjs/index.js';
import { basic } from '../support/server.js';
import { PLATFORMS, createApplication, listenLocally, type Platform } from './support.js';
import { USERS, createTestAuthenticator } from '../support/fixture.js';

type Who = 'anonymous' | keyof typeof USERS;
const WHO: Who[] = ['anonymous', 'user', 'writer', 'admin', 'guest'];
const headersFor = (who: Who): Record<string, string> =>
  who === 'anonymous' ? {} : { authorization: basic(who, `${who}-pw`) };

/** Administrators only, but for the handlers that say otherwise. */
@Controller('class')
@Secured('ADMIN')
class ClassRuleController {
  @Get('inherited')
  inherited(): string {
    return 'inherited';
  }

  @Get('open')
  @PermitAll()
  open(@CurrentUser() user: AuthenticatedUser | null): string {
    return `open to ${user?.username ?? 'anonymous'}`;
  }

  @Get('writers')
  @PreAuthorize({ authority: 'posts:write' })
  writers(): string {
    return 'writers';
  }
}

@Controller('public')
@PermitAll()
class PublicController {
  @Get()
  index(): string {
    return 'public';
  }

  @Get('closed')
  @DenyAll()
  closed(): string {
    return 'never';
  }

  @Get('members')
  @Authenticated()
  members(): string {
    return 'members';
  }
}

@Controller('plain')
class UndecoratedController {
  @Get()
  index(): string {
    return 'plain';
  }
}

@Controller('args')
class ArgsController {
  /** The body's author must be the caller, unless an admin asks. */
  @Post('posts')
  @PreAuthorize("hasRole('ADMIN') or args.author == principal.username")
  create(@Body() body: { author: string }): string {
    return `created for ${body.author}`;
  }

  /** Updates the post the query names: the rule must read that same author. */
  @Put('posts')
  @PreAuthorize('args.author == principal.username')
  update(@Query('author') author: string): string {
    return `updated the post of ${author}`;
  }

  @Get('search')
  @PreAuthorize("args.owner == principal.username and hasRole('USER')")
  search(@Query('owner') owner: string): string {
    return `search ${owner}`;
  }

  /** The caller three ways: the parameter, the SecurityContext, and request.user. */
  @Get('both')
  @Authenticated()
  both(
    @CurrentUser() user: AuthenticatedUser,
    @Req() request: { user?: AuthenticatedUser },
  ): string {
    return `${user.username} ${SecurityContext.getUser()?.username ?? 'none'} ${request.user?.username ?? 'none'}`;
  }

  /** The SecurityContext holds the caller across awaits. */
  @Get('context')
  @RolesAllowed('USER', 'ADMIN')
  async context(): Promise<string> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    await Promise.resolve();
    return `context ${SecurityContext.requireUser().username}`;
  }
}

const CONTROLLERS = [ClassRuleController, PublicController, UndecoratedController, ArgsController];

let app: INestApplication | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** An application of `controllers` with the module's `options`, initialised and listening. */
async function start(
  platform: Platform,
  options: Partial<PortcullisModuleOptions> = {},
  controllers: (new () => unknown)[] = CONTROLLERS,
): Promise<string> {
  const moduleRef = await Test.createTestingModule({
    imports: [PortcullisModule.forRoot({ authenticator: createTestAuthenticator(), ...options })],
    controllers,
  }).compile();
  app = createApplication(moduleRef, platform);
  return listenLocally(app);
}

async function statuses(
  origin: string,
  path: string,
  init: RequestInit = {},
): Promise<Record<Who, number>> {
  const seen = {} as Record<Who, number>;
  for (const who of WHO) {
    const response = await fetch(`${origin}${path}`, {
      ...init,
      headers: { ...headersFor(who), ...(init.headers as Record<string, string> | undefined) },
    });
    await response.arrayBuffer();
    seen[who] = response.status;
  }
  return seen;
}

describe.each<Platform>(PLATFORMS)('PortcullisModule on %s', (platform) => {
  it("applies a controller's decorator to its handlers, a handler's own winning", async () => {
    const origin = await start(platform);
    expect(await statuses(origin, '/class/inherited')).toEqual({
      anonymous: 401,
      user: 403,
      writer: 403,
      admin: 200,
      guest: 403,
    });
    expect(await statuses(origin, '/class/open')).toEqual({
      anonymous: 200,
      user: 200,
      writer: 200,
      admin: 200,
      guest: 200,
    });
    // The handler's rule replaces the class's: a writer who is no admin passes.
    expect(await statuses(origin, '/class/writers')).toEqual({
      anonymous: 401,
      user: 403,
      writer: 200,
      admin: 200,
      guest: 403,
    });
    expect(await statuses(origin, '/public/closed')).toEqual({
      anonymous: 401,
      user: 403,
      writer: 403,
      admin: 403,
      guest: 403,
    });
    expect(await statuses(origin, '/public/members')).toEqual({
      anonymous: 401,
      user: 200,
      writer: 200,
      admin: 200,
      guest: 200,
    });
    const open = await fetch(`${origin}/class/open`, { headers: headersFor('writer') });
    expect(await open.text()).toBe('open to writer');
  });

  it('gives an undecorated handler the default policy: authenticated, or the one configured', async () => {
    let origin = await start(platform);
    expect(await statuses(origin, '/plain')).toEqual({
      anonymous: 401,
      user: 200,
      writer: 200,
      admin: 200,
      guest: 200,
    });
    await app?.close();
    origin = await start(platform, { defaultPolicy: 'denyAll' });
    expect(await statuses(origin, '/plain')).toEqual({
      anonymous: 401,
      user: 403,
      writer: 403,
      admin: 403,
      guest: 403,
    });
    // A decorated handler is not affected by the default policy.
    expect((await statuses(origin, '/public')).anonymous).toBe(200);
    await app?.close();
    origin = await start(platform, { defaultPolicy: 'permitAll' });
    expect((await statuses(origin, '/plain')).anonymous).toBe(200);
  });

  it('reads the body, the query and the route params as args', async () => {
    const origin = await start(platform);
    const post = (author: string) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ author }),
    });
    expect(await statuses(origin, '/args/posts', post('writer'))).toEqual({
      anonymous: 401,
      user: 403,
      writer: 201,
      admin: 201,
      guest: 403,
    });
    expect(await statuses(origin, '/args/search?owner=user')).toEqual({
      anonymous: 401,
      user: 200,
      writer: 403,
      admin: 403,
      guest: 403,
    });
    const created = await fetch(`${origin}/args/posts`, {
      ...post('admin'),
      headers: { ...post('admin').headers, ...headersFor('admin') },
    });
    expect(await created.text()).toBe('created for admin');
  });

  it('runs the handler with the caller in the SecurityContext, across awaits', async () => {
    const origin = await start(platform);
    const response = await fetch(`${origin}/args/context`, { headers: headersFor('writer') });
    expect(await response.text()).toBe('context writer');
    expect(SecurityContext.getUser()).toBeNull();
  });

  it('runs the firewall before the router: 400 for a bad path no route serves, then 404', async () => {
    const origin = await start(platform);
    const bad = await fetch(`${origin}/no/such/a%2F..%2Fpath`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { statusCode: number }).statusCode).toBe(400);
    const missing = await fetch(`${origin}/no/such/path`);
    expect(missing.status).toBe(404);
    await missing.arrayBuffer();
  });

  it('leaves the SecurityContext alone with securityContext: false, the parameter and request.user still set', async () => {
    let origin = await start(platform);
    const both = async () =>
      (await fetch(`${origin}/args/both`, { headers: headersFor('writer') })).text();
    expect(await both()).toBe('writer writer writer');
    await app?.close();
    origin = await start(platform, { securityContext: false });
    expect(await both()).toBe('writer none writer');
    expect((await statuses(origin, '/class/inherited')).user).toBe(403);
  });

  it('publishes access-denied with the rule, and shows the rule in messages in debug mode', async () => {
    const events = new SecurityEvents();
    const seen: SecurityEvent[] = [];
    events.on('access-denied', (event) => {
      seen.push(event);
    });
    const origin = await start(platform, { events, debug: true });
    const response = await fetch(`${origin}/class/inherited`, { headers: headersFor('user') });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { message: string }).message).toBe(
      "Access is denied by hasAnyRole('ADMIN')",
    );
    await vi.waitFor(() => {
      expect(seen).toHaveLength(1);
    });
    expect(seen).toEqual([
      expect.objectContaining({
        type: 'access-denied',
        username: 'user',
        rule: "hasAnyRole('ADMIN')",
        request: expect.objectContaining({ method: 'GET', path: '/class/inherited' }) as unknown,
        expression: "hasAnyRole('ADMIN')",
        failingTerm: "hasAnyRole('ADMIN')",
      }),
    ]);
  });

  it("names the failing term with the handler's args in debug mode, and nothing more without it", async () => {
    const events = new SecurityEvents();
    const seen: SecurityEvent[] = [];
    events.on('access-denied', (event) => {
      seen.push(event);
    });
    let origin = await start(platform, { events, debug: true });
    const denied = await fetch(`${origin}/args/search?owner=writer`, {
      headers: headersFor('user'),
    });
    expect(denied.status).toBe(403);
    await denied.arrayBuffer();
    await vi.waitFor(() => {
      expect(seen).toHaveLength(1);
    });
    expect(seen[0]).toMatchObject({
      expression: "args.owner == principal.username and hasRole('USER')",
      failingTerm: 'args.owner == principal.username',
    });
    await app?.close();
    seen.length = 0;
    origin = await start(platform, { events });
    const quiet = await fetch(`${origin}/args/search?owner=writer`, {
      headers: headersFor('user'),
    });
    expect(((await quiet.json()) as { message: string }).message).toBe('Access is denied');
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toHaveProperty('failingTerm');
  });

  it('denies a name of args that the query and the body give different values', async () => {
    const origin = await start(platform);
    const update = (query: string, author: string, who: Who) =>
      fetch(`${origin}/args/posts?author=${query}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headersFor(who) },
        body: JSON.stringify({ author }),
      });
    // The attack: the rule would read the body's author, the handler the query's.
    const attack = await update('writer', 'user', 'user');
    expect(attack.status).toBe(403);
    expect(await attack.text()).not.toContain('updated');
    // The same value in both is no ambiguity.
    const own = await update('user', 'user', 'user');
    expect(own.status).toBe(200);
    expect(await own.text()).toBe('updated the post of user');
  });

  it('answers 401 with the configured challenges, and none when there is none', async () => {
    let origin = await start(platform, {
      challenges: ['Basic realm="api", charset="UTF-8"', 'Bearer realm="api"'],
    });
    let response = await fetch(`${origin}/plain`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Basic realm="api", charset="UTF-8", Bearer realm="api"',
    );
    await response.arrayBuffer();
    await app?.close();
    origin = await start(platform);
    response = await fetch(`${origin}/plain`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBeNull();
    await response.arrayBuffer();
  });

  it('runs the URL rules (authorizer) before the decorators, with their entry point', async () => {
    const origin = await start(platform, {
      authorizer: AuthorizationManager.requestMatcher()
        .httpBasic()
        .requestMatchers('/public/**', new Access().roles(['USER']))
        .anyRequest(Access.permitAll()),
    });
    // The URL rule refuses before the handler's @PermitAll().
    const refused = await fetch(`${origin}/public`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      'Basic realm="Restricted", charset="UTF-8"',
    );
    expect(((await refused.json()) as { statusCode: number }).statusCode).toBe(401);
    expect((await statuses(origin, '/public')).guest).toBe(403);
    expect((await statuses(origin, '/public')).user).toBe(200);
    // Past the URL rules, the decorators still decide.
    expect((await statuses(origin, '/class/inherited')).user).toBe(403);
  });
});

describe.each<Platform>(PLATFORMS)('failures and refusals on %s', (platform) => {
  /** An authenticator answering `outcome` for every request. */
  const answering = (outcome: () => AuthenticationOutcome): Authenticator => ({
    getUser: () => null,
    attempt: outcome,
  });

  it('fails closed with 503 and Retry-After when authentication cannot answer', async () => {
    const origin = await start(platform, {
      authenticator: answering(() => {
        throw new UnavailableError('the store is down', 7);
      }),
    });
    for (const path of ['/plain', '/public']) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('7');
      expect(((await response.json()) as { statusCode: number }).statusCode).toBe(503);
    }
  });

  it("adds a refused bearer token's RFC 6750 error to the challenge", async () => {
    const origin = await start(platform, {
      authenticator: answering(() =>
        Outcome.failed('bad-credentials', {
          challenge: { scheme: 'Bearer', error: 'invalid_token', description: 'The token expired' },
        }),
      ),
      challenges: ['Bearer realm="api"'],
    });
    const response = await fetch(`${origin}/plain`, { headers: { authorization: 'Bearer x' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="api", error="invalid_token", error_description="The token expired"',
    );
    await response.arrayBuffer();
  });

  it('answers 403 to a request the authenticator refused outright', async () => {
    const origin = await start(platform, {
      authenticator: answering(() => Outcome.refused('csrf')),
    });
    const response = await fetch(`${origin}/plain`);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBeNull();
    await response.arrayBuffer();
  });
});

describe('start-up', () => {
  it('fails app.init() on a bad expression, naming the handler and the column', async () => {
    @Controller('bad')
    class BadController {
      @Get()
      // @ts-expect-error -- the unbalanced parenthesis is a tsc error too
      @PreAuthorize("hasRole('ADMIN'")
      index(): string {
        return 'never';
      }
    }
    const error = await start('express', {}, [BadController]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExpressionSyntaxError);
    // The parenthesis left open, with the caret line under it.
    expect((error as ExpressionSyntaxError).column).toBe(8);
    expect((error as Error).message).toBe(
      `BadController.index: Unclosed "(" at column 8\nhasRole('ADMIN'\n       ^`,
    );
  });

  it('fails app.init() on a misspelt function', async () => {
    @Controller('typo')
    class TypoController {
      @Get()
      // @ts-expect-error -- hasRol is not a function: tsc says so
      @PreAuthorize("hasRol('ADMIN')")
      index(): string {
        return 'never';
      }
    }
    const error = await start('express', {}, [TypoController]).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^TypoController\.index: /u);
    expect((error as { code?: string }).code).toMatch(/^ERR_EXPRESSION/u);
  });

  it('in strict mode, refuses to start with an undecorated handler, naming it', async () => {
    const error = await start('express', { strict: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('UndecoratedController.index');
    expect((error as Error).message).not.toContain('ClassRuleController');
    // Without the undecorated controller, strict mode starts.
    const origin = await start('express', { strict: true }, [PublicController]);
    expect((await statuses(origin, '/public')).anonymous).toBe(200);
  });

  it('refuses bad options when forRoot is called', () => {
    const authenticator = createTestAuthenticator();
    expect(() =>
      PortcullisModule.forRoot({ authenticator, defaultPolicy: 'deny' as 'denyAll' }),
    ).toThrow(ConfigurationError);
    expect(() =>
      PortcullisModule.forRoot({ authenticator, challenge: [] } as PortcullisModuleOptions),
    ).toThrow(/challenges/u);
    expect(() => PortcullisModule.forRoot({} as PortcullisModuleOptions)).toThrow(
      /authenticator: must be an Authenticator/u,
    );
    expect(() =>
      PortcullisModule.forRootAsync({} as Parameters<typeof PortcullisModule.forRootAsync>[0]),
    ).toThrow(/useFactory/u);
    expect(() =>
      PortcullisModule.forRoot({ authenticator, securityContext: 'no' as unknown as boolean }),
    ).toThrow(/securityContext: must be a boolean/u);
  });

  it('refuses debug mode with NODE_ENV=production', () => {
    vi.stubEnv('NODE_ENV', 'production');
    try {
      expect(() =>
        PortcullisModule.forRoot({ authenticator: createTestAuthenticator(), debug: true }),
      ).toThrow(/debug: is refused with NODE_ENV=production/u);
      expect(() =>
        PortcullisModule.forRoot({ authenticator: createTestAuthenticator(), debug: false }),
      ).not.toThrow();
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('takes its options from a factory with forRootAsync, failing the start on bad ones', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        PortcullisModule.forRootAsync({
          useFactory: () => Promise.resolve({ authenticator: createTestAuthenticator() }),
        }),
      ],
      controllers: [PublicController],
    }).compile();
    app = createApplication(moduleRef, 'express');
    const origin = await listenLocally(app);
    expect((await statuses(origin, '/public/members')).anonymous).toBe(401);
    await app.close();
    app = undefined;
    const failing = Test.createTestingModule({
      imports: [
        PortcullisModule.forRootAsync({
          useFactory: () => ({ authenticator: createTestAuthenticator(), strict: 'yes' as never }),
        }),
      ],
      controllers: [PublicController],
    }).compile();
    await expect(failing).rejects.toThrow(/strict: must be a boolean/u);
  });
});
