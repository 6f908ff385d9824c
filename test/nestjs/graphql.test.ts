/**
 * portcullis/nestjs on GraphQL resolvers (@nestjs/graphql with the Apollo driver, on
 * Express and on Fastify), over real HTTP on 127.0.0.1: the same decorators as on controllers, the
 * field's arguments as `args`, denials as `UNAUTHENTICATED` / `FORBIDDEN` errors with
 * their HTTP status and challenge, as the GraphQL directives answer.
 */
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Args, GraphQLModule, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SecurityContext,
  SecurityEvents,
  UnavailableError,
  type AuthenticatedUser,
} from '../../src/index.js';
import {
  CurrentUser,
  PermitAll,
  PortcullisModule,
  PreAuthorize,
  Secured,
} from '../../src/nestjs/index.js';
import { createTestAuthenticator } from '../support/fixture.js';
import { basic } from '../support/server.js';
import { PLATFORMS, createApplication, listenLocally, type Platform } from './support.js';

const typeDefs = /* GraphQL */ `
  type Query {
    health: String!
    me: String!
    posts: [String!]!
    draftsOf(author: String!): [String!]!
    stats: String!
    context: String!
  }
  type Mutation {
    deletePost(id: ID!): Boolean!
    like(id: ID!): Boolean!
  }
`;

@Resolver()
class QueryResolver {
  @Query('health')
  @PermitAll()
  health(): string {
    return 'OK';
  }

  /** No decorator: the default policy, authenticated. */
  @Query('me')
  me(@CurrentUser() user: AuthenticatedUser): string {
    return user.username;
  }

  @Query('posts')
  @PreAuthorize("hasRole('USER') and hasAuthority('posts:read')")
  posts(): string[] {
    return ['first', 'second'];
  }

  /** `args` are the field's arguments. */
  @Query('draftsOf')
  @PreAuthorize("hasRole('ADMIN') or args.author == principal.username")
  draftsOf(@Args('author') author: string): string[] {
    return [`draft of ${author}`];
  }

  @Query('stats')
  @Secured('ADMIN')
  stats(): string {
    return 'stats';
  }

  @Query('context')
  @PermitAll()
  async context(): Promise<string> {
    await new Promise((resolve) => setTimeout(resolve, 2));
    return SecurityContext.getUser()?.username ?? 'anonymous';
  }
}

/** Administrators only, but for `like`. */
@Resolver()
@Secured('ADMIN')
class MutationResolver {
  @Mutation('deletePost')
  deletePost(): boolean {
    return true;
  }

  @Mutation('like')
  @PermitAll()
  like(): boolean {
    return true;
  }
}

interface GraphQLResponse {
  status: number;
  challenge: string | null;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; path?: string[]; extensions: { code: string } }[];
  };
}

describe.each<Platform>(PLATFORMS)('GraphQL resolvers (Apollo driver) on %s', (platform) => {
  let app: INestApplication;
  let origin: string;
  const events = new SecurityEvents();
  const denied: string[] = [];
  events.on('access-denied', (event) => {
    denied.push(`${event.username ?? 'anonymous'} ${event.rule}`);
  });

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        GraphQLModule.forRoot<ApolloDriverConfig>({ driver: ApolloDriver, typeDefs }),
        PortcullisModule.forRoot({
          authenticator: createTestAuthenticator(),
          challenges: ['Basic realm="api", charset="UTF-8"'],
          events,
        }),
      ],
      providers: [QueryResolver, MutationResolver],
    }).compile();
    app = createApplication(moduleRef, platform);
    origin = await listenLocally(app);
  });
  afterAll(async () => {
    await app.close();
  });

  async function query(who: string | null, source: string): Promise<GraphQLResponse> {
    const response = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(who === null ? {} : { authorization: basic(who, `${who}-pw`) }),
      },
      body: JSON.stringify({ query: source }),
    });
    return {
      status: response.status,
      challenge: response.headers.get('www-authenticate'),
      body: (await response.json()) as GraphQLResponse['body'],
    };
  }

  const codes = (response: GraphQLResponse) =>
    (response.body.errors ?? []).map((e) => `${e.path?.join('.') ?? ''} ${e.extensions.code}`);

  it('lets everyone through a @PermitAll() resolver', async () => {
    const response = await query(null, '{ health }');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { health: 'OK' } });
  });

  it('answers UNAUTHENTICATED, with the challenge, to an anonymous caller', async () => {
    const response = await query(null, '{ me }');
    expect(codes(response)).toEqual(['me UNAUTHENTICATED']);
    expect(response.body.errors?.[0]?.message).toBe('Authentication is required');
    // @nestjs/apollo answers a result with `data` with 200 whatever the errors' status
    // (nestjs/graphql#2940); the errors' headers stay.
    expect(response.status).toBe(200);
    expect(response.challenge).toBe('Basic realm="api", charset="UTF-8"');
  });

  it('answers FORBIDDEN to a caller the rule refuses', async () => {
    const guest = await query('guest', '{ me posts }');
    expect(codes(guest)).toEqual(['posts FORBIDDEN']);
    expect(guest.body.data).toBeNull();
    expect(guest.challenge).toBeNull();
    const user = await query('user', '{ me posts }');
    expect(user.body).toEqual({ data: { me: 'user', posts: ['first', 'second'] } });
    const stats = await query('user', '{ stats }');
    expect(codes(stats)).toEqual(['stats FORBIDDEN']);
    expect((await query('admin', '{ stats }')).body).toEqual({ data: { stats: 'stats' } });
  });

  it("reads the field's arguments as args", async () => {
    expect((await query('writer', '{ draftsOf(author: "writer") }')).body).toEqual({
      data: { draftsOf: ['draft of writer'] },
    });
    expect(codes(await query('writer', '{ draftsOf(author: "user") }'))).toEqual([
      'draftsOf FORBIDDEN',
    ]);
    expect((await query('admin', '{ draftsOf(author: "user") }')).body).toEqual({
      data: { draftsOf: ['draft of user'] },
    });
  });

  it("applies a resolver class's decorator to its fields, a field's own winning", async () => {
    expect(codes(await query('writer', 'mutation { deletePost(id: "1") }'))).toEqual([
      'deletePost FORBIDDEN',
    ]);
    expect((await query('admin', 'mutation { deletePost(id: "1") }')).body).toEqual({
      data: { deletePost: true },
    });
    expect((await query(null, 'mutation { like(id: "1") }')).body).toEqual({
      data: { like: true },
    });
  });

  it('runs the resolver with the caller in the SecurityContext', async () => {
    expect((await query('writer', '{ context }')).body).toEqual({ data: { context: 'writer' } });
    expect((await query(null, '{ context }')).body).toEqual({ data: { context: 'anonymous' } });
  });

  it('publishes access-denied for each refused field', async () => {
    denied.length = 0;
    await query('guest', '{ posts stats }');
    expect(denied.sort()).toEqual([
      "guest hasAnyRole('ADMIN')",
      "guest hasRole('USER') and hasAuthority('posts:read')",
    ]);
  });
});

describe('GraphQL resolvers when authentication cannot answer', () => {
  it('fails closed with 503 and Retry-After before any resolver, even a @PermitAll() one', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        GraphQLModule.forRoot<ApolloDriverConfig>({ driver: ApolloDriver, typeDefs }),
        PortcullisModule.forRoot({
          authenticator: {
            getUser: () => {
              throw new UnavailableError('the store is down', 9);
            },
          },
        }),
      ],
      providers: [QueryResolver, MutationResolver],
    }).compile();
    const app = createApplication(moduleRef, 'express');
    try {
      const origin = await listenLocally(app);
      const response = await fetch(`${origin}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ health }' }),
      });
      // The module's middleware runs the pipeline before Nest routes the request to Apollo.
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('9');
      expect(await response.json()).toEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'The service is unavailable, try again later',
      });
    } finally {
      await app.close();
    }
  });
});

describe('GraphQL resolvers at start-up', () => {
  async function init(resolvers: (new () => unknown)[], strict = false): Promise<unknown> {
    const moduleRef = await Test.createTestingModule({
      imports: [
        GraphQLModule.forRoot<ApolloDriverConfig>({ driver: ApolloDriver, typeDefs }),
        PortcullisModule.forRoot({ authenticator: createTestAuthenticator(), strict }),
      ],
      providers: resolvers,
    }).compile();
    const app = createApplication(moduleRef, 'express');
    try {
      await app.init();
      return undefined;
    } catch (error) {
      return error;
    } finally {
      await app.close();
    }
  }

  it("fails app.init() on a resolver's bad expression, naming it", async () => {
    @Resolver()
    class BadResolver {
      @Query('health')
      // @ts-expect-error -- the unbalanced parenthesis is a tsc error too
      @PreAuthorize("hasRole('USER'")
      health(): string {
        return 'never';
      }
    }
    const error = await init([BadResolver]);
    expect((error as Error).message).toMatch(/^BadResolver\.health: Unclosed "\(" at column 8/u);
  });

  it('in strict mode, names the undecorated resolver methods', async () => {
    const error = await init([QueryResolver, MutationResolver], true);
    expect((error as Error).message).toContain('QueryResolver.me');
    expect((error as Error).message).not.toContain('QueryResolver.health');
    expect((error as Error).message).not.toContain('MutationResolver');
    expect(await init([MutationResolver], true)).toBeUndefined();
  });
});
