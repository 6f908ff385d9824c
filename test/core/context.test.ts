import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AuthenticatedUser, SecurityContext, User } from '../../src/index.js';

const userNamed = (name: string) => AuthenticatedUser.from(new User(name, 'x'));

describe('SecurityContext', () => {
  it('is empty outside a request', () => {
    expect(SecurityContext.getUser()).toBeNull();
    expect(() => SecurityContext.requireUser()).toThrow(
      expect.objectContaining({ code: 'ERR_AUTHENTICATION_REQUIRED' }),
    );
  });

  it('keeps each run its own user across awaits, under concurrency', async () => {
    const seen = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        SecurityContext.run(userNamed(`user${i}`), async () => {
          const names: string[] = [];
          for (let step = 0; step < 5; step++) {
            await sleep((i * 7 + step * 3) % 5);
            names.push(SecurityContext.requireUser().username);
          }
          return names;
        }),
      ),
    );
    seen.forEach((names, i) => {
      expect(names).toEqual(Array(5).fill(`user${i}`));
    });
  });

  it('runs anonymously with null', () => {
    expect(SecurityContext.run(null, () => SecurityContext.getUser())).toBeNull();
  });
});
