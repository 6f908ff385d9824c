import {
  AuthenticationManager,
  DelegatingPasswordEncoder,
  NoOpPasswordEncoder,
  User,
  type Authenticator,
} from '../../src/index.js';

/** Users alice, bob (role USER) and admin (ADMIN, USER); the password is `<name>-pw`, stored with `{noop}`. */
export function testAuthenticator(): Authenticator {
  const encoder = new DelegatingPasswordEncoder()
    .withEncoder('noop', new NoOpPasswordEncoder())
    .defaultEncoder('noop');
  return AuthenticationManager.inMemoryAuthentication()
    .passwordEncoder(encoder)
    .withUser(new User('alice', '{noop}alice-pw').withRoles(['USER']))
    .withUser(new User('bob', '{noop}bob-pw').withRoles(['USER']))
    .withUser(new User('admin', '{noop}admin-pw').withRoles(['ADMIN', 'USER']));
}

/** `Authorization: Basic` for a user of {@link testAuthenticator}. */
export function login(name: string): string {
  return `Basic ${Buffer.from(`${name}:${name}-pw`, 'utf8').toString('base64')}`;
}

/** Sends `count` requests one after the other; answers their statuses. */
export async function statuses(
  count: number,
  send: (i: number) => Promise<Response>,
): Promise<number[]> {
  const found: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await send(i);
    await response.arrayBuffer();
    found.push(response.status);
  }
  return found;
}
