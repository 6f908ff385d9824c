/**
 * The SPEC's vocabulary stays reachable through every rename of the 1.0 API: each
 * name SPEC.md defines is called here and does what the SPEC says.
 */
import { initTRPC, type TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { Argon2PasswordEncoder } from '../../src/argon2/index.js';
import { securityDirectivesTypeDefs } from '../../src/graphql/index.js';
import {
  Access,
  AuthenticatedUser,
  AuthenticationManager,
  AuthorizationManager,
  DelegatingPasswordEncoder,
  NoOpPasswordEncoder,
  SecurityTransform,
  User,
  createSecurityRequest,
  type Authenticator,
} from '../../src/index.js';
import { Claims, JwtAuthenticator, JwtConfig, JwtTokenService } from '../../src/jwt/index.js';
import { denyAll, permitAll, preAuthorize, rolesAllowed, secured } from '../../src/trpc/index.js';

const SECRET = 'a-secret-of-at-least-sixty-four-bytes-for-hs512-signing-in-this-test!!';

const get = (path: string, authorization?: string) =>
  createSecurityRequest({
    method: 'GET',
    url: path,
    header: (name) => (name === 'authorization' ? authorization : undefined),
  });

describe("SPEC.md's names", () => {
  it('User::with_encoded_password, User::new and AuthenticatedUser’s accessors', () => {
    const user = User.withEncodedPassword('alice', '{noop}pw')
      .withRoles(['USER'])
      .withAuthorities(['posts:read']);
    expect(user.password).toBe('{noop}pw');
    expect(new User('bob', 'raw').username).toBe('bob');
    const authenticated = AuthenticatedUser.from(user);
    expect(authenticated.getUsername()).toBe('alice');
    expect([...authenticated.getRoles()]).toEqual(['USER']);
    expect([...authenticated.getAuthorities()]).toEqual(['posts:read']);
    expect(authenticated.getPassword()).toBe('{noop}pw');
  });

  it('AuthenticationManager::in_memory_authentication with password_encoder, with_user, find_user', () => {
    const memory = AuthenticationManager.inMemoryAuthentication()
      .passwordEncoder(new NoOpPasswordEncoder())
      .withUser(new User('alice', 'pw').withRoles(['USER']));
    expect(memory.findUser('alice')?.username).toBe('alice');
    expect(memory.findUser('mallory')).toBeNull();
  });

  it('the password encoders and the delegating encoder’s with_encoder / default_encoder', async () => {
    const delegating = new DelegatingPasswordEncoder()
      .withEncoder('argon2', new Argon2PasswordEncoder())
      .withEncoder('noop', new NoOpPasswordEncoder())
      .defaultEncoder('argon2');
    const encoded = await delegating.encode('s3cret');
    expect(encoded.startsWith('{argon2}$argon2id$v=19$')).toBe(true);
    expect(await delegating.matches('s3cret', encoded)).toBe(true);
    expect(await delegating.matches('wrong', encoded)).toBe(false);
    expect(await delegating.matches('pw', '{noop}pw')).toBe(true);
  });

  it('SecurityTransform with config_authenticator / config_authorizer, request_matcher, add_matcher, Access', async () => {
    const authenticator: Authenticator = {
      getUser: (request) =>
        request.header('authorization') === 'let-me-in'
          ? new User('alice', '').withRoles(['USER'])
          : null,
    };
    const transform = new SecurityTransform()
      .configAuthenticator(() => authenticator)
      .configAuthorizer(() =>
        AuthorizationManager.requestMatcher()
          .loginUrl('/login')
          .httpBasic()
          .addMatcher('^/admin', new Access().roles(['ADMIN']))
          .addMatcher('^/user', new Access().authenticated()),
      );
    const status = async (path: string, authorization?: string) => {
      const outcome = await transform.handle(get(path, authorization));
      return outcome.proceed ? 200 : outcome.response.status;
    };
    expect(await status('/user')).toBe(401);
    expect(await status('/user', 'let-me-in')).toBe(200);
    expect(await status('/admin', 'let-me-in')).toBe(403);
  });

  it('JwtConfig’s setters (expiration_secs, leeway_secs, …), Claims, JwtAuthenticator and JwtTokenService', async () => {
    const config = new JwtConfig(SECRET)
      .algorithm('HS512')
      .issuer('spec')
      .audience('api')
      .expirationSecs(600)
      .leewaySecs(5)
      .headerName('Authorization')
      .headerPrefix('Bearer ');
    expect(new JwtConfig(SECRET).expirationHours(1).resolve().expirationSeconds).toBe(3600);
    expect(new JwtConfig(SECRET).expirationDays(1).resolve().expirationSeconds).toBe(86_400);
    expect(config.resolve().expirationSeconds).toBe(600);
    expect(config.resolve().leewaySeconds).toBe(5);
    const jwt = new JwtAuthenticator(config);
    const token = await jwt.generateToken(new User('alice', '').withRoles(['USER']));
    expect((await jwt.validateToken(token)).claims.sub).toBe('alice');
    const custom = await jwt.generateTokenWithClaims(
      new Claims('bob', 60).issuer('spec').audience('api').withRoles(['ADMIN']),
    );
    expect((await jwt.getUser(get('/', `Bearer ${custom}`)))?.username).toBe('bob');
    const service = new JwtTokenService(config).refreshExpirationDays(7);
    expect(service.refreshExpiresIn).toBe(7 * 86_400);
  });

  it('the five handler macros as tRPC guards and GraphQL directives', async () => {
    const t = initTRPC.context<{ user: AuthenticatedUser | null }>().create();
    const router = t.router({
      secured: t.procedure.use(secured('ADMIN')).query(() => 'ok'),
      rolesAllowed: t.procedure.use(rolesAllowed('ADMIN')).query(() => 'ok'),
      preAuthorize: t.procedure.use(preAuthorize("hasRole('USER')")).query(() => 'ok'),
      permitAll: t.procedure.use(permitAll()).query(() => 'ok'),
      denyAll: t.procedure.use(denyAll()).query(() => 'ok'),
    });
    const user = AuthenticatedUser.from(new User('alice', '').withRoles(['USER']));
    const caller = router.createCaller({ user });
    const code = (call: Promise<string>) =>
      call.then(
        () => 'OK',
        (error: unknown) => (error as TRPCError).code,
      );
    expect(await code(caller.secured())).toBe('FORBIDDEN');
    expect(await code(caller.rolesAllowed())).toBe('FORBIDDEN');
    expect(await code(caller.preAuthorize())).toBe('OK');
    expect(await code(caller.permitAll())).toBe('OK');
    expect(await code(caller.denyAll())).toBe('FORBIDDEN');
    for (const directive of ['secured', 'preAuthorize', 'permitAll', 'denyAll', 'rolesAllowed']) {
      expect(securityDirectivesTypeDefs).toContain(`directive @${directive}`);
    }
  });
});
