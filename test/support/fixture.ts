import { setTimeout as sleep } from 'node:timers/promises';
import {
  Access,
  AuthenticationManager,
  AuthorizationManager,
  DelegatingPasswordEncoder,
  MemoryAuthenticator,
  NoOpPasswordEncoder,
  SecurityContext,
  SecurityEvents,
  SecurityTransform,
  User,
} from '../../src/index.js';

/** Users of the adapter tests: password is `<name>-pw`, stored with `{noop}`. */
export const USERS = {
  user: { roles: ['USER'], authorities: ['posts:read'] },
  writer: { roles: ['USER'], authorities: ['posts:read', 'posts:write'] },
  admin: { roles: ['ADMIN', 'USER'], authorities: ['posts:read', 'posts:write', 'users:write'] },
  guest: { roles: [], authorities: [] },
} as const;

/**
 * The {@link USERS} in memory (password `<name>-pw`), and `legacy`, a user whose stored
 * hash names an encoder nobody registered.
 */
export function createTestAuthenticator(): MemoryAuthenticator {
  const encoder = new DelegatingPasswordEncoder()
    .withEncoder('noop', new NoOpPasswordEncoder())
    .defaultEncoder('noop');
  let authenticator = AuthenticationManager.inMemoryAuthentication().passwordEncoder(encoder);
  for (const [name, { roles, authorities }] of Object.entries(USERS)) {
    authenticator = authenticator.withUser(
      new User(name, `{noop}${name}-pw`).withRoles(roles).withAuthorities(authorities),
    );
  }
  return authenticator.withUser(new User('legacy', '{md5}legacy-pw').withRoles(['USER']));
}

/** The transform every adapter test mounts, and the events it publishes to. */
export function createTestTransform(): { transform: SecurityTransform; events: SecurityEvents } {
  const events = new SecurityEvents();
  const authenticator = createTestAuthenticator();
  const transform = new SecurityTransform({ events })
    .configAuthenticator(() => authenticator)
    .configAuthorizer(() =>
      AuthorizationManager.requestMatcher()
        .loginUrl('/login')
        .httpBasic()
        .addMatcher('/admin(?:/.*)?', new Access().roles(['ADMIN']))
        .addMatcher('/profile', new Access().roles(['USER']))
        .addMatcher('/ctx', new Access().authenticated())
        .addMatcher('/posts', new Access().roles(['USER']).authorities(['posts:read']), {
          methods: ['GET'],
        })
        .addMatcher('/posts', new Access().authorities(['posts:write']), { methods: ['POST'] })
        // The rest of this site is public: an explicit choice (unmatched paths need a login).
        .anyRequest(Access.permitAll()),
    );
  return { transform, events };
}

/**
 * The application behind every adapter: answers `hello <user>`, and on `/ctx`
 * the SecurityContext's user read after several awaits.
 */
export async function respond(path: string): Promise<string> {
  if (path.startsWith('/ctx')) {
    for (let i = 0; i < 3; i++) await sleep(Math.floor(Math.random() * 4));
    return `ctx ${SecurityContext.requireUser().username}`;
  }
  return `hello ${SecurityContext.getUser()?.username ?? 'anonymous'}`;
}
