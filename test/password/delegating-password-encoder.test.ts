import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  SecurityEvents,
  securityEvents,
  type SecurityEvent,
  type UnknownPasswordEncoderEvent,
} from '../../src/core/events.js';
import {
  DelegatingPasswordEncoder,
  NoOpPasswordEncoder,
  Pbkdf2PasswordEncoder,
  ScryptPasswordEncoder,
  type PasswordEncoder,
} from '../../src/password/index.js';
import { passwordEncoderContract } from './encoder-contract.js';
import { configurationError, encodingFailure } from './helpers.js';

const scrypt = new ScryptPasswordEncoder({ cost: 2 ** 10, dangerouslyAllowWeakParameters: true });
const pbkdf2 = new Pbkdf2PasswordEncoder({
  iterations: 1000,
  dangerouslyAllowWeakParameters: true,
});
const noop = new NoOpPasswordEncoder();

function recording() {
  const events = new SecurityEvents();
  const seen: UnknownPasswordEncoderEvent[] = [];
  events.on('unknown-password-encoder', (event) => {
    seen.push(event);
  });
  const encoder = new DelegatingPasswordEncoder({ events })
    .withEncoder('scrypt', scrypt)
    .withEncoder('pbkdf2', pbkdf2)
    .defaultEncoder('scrypt');
  return { events, seen, encoder };
}

afterEach(() => {
  vi.restoreAllMocks();
});

passwordEncoderContract(
  'DelegatingPasswordEncoder',
  (options) =>
    new DelegatingPasswordEncoder({ events: new SecurityEvents() })
      .withEncoder('pbkdf2', pbkdf2)
      .withEncoder(
        'scrypt',
        new ScryptPasswordEncoder({
          cost: 2 ** 10,
          dangerouslyAllowWeakParameters: true,
          ...options,
        }),
      )
      .defaultEncoder('scrypt'),
  {
    format: /^\{scrypt\}\$scrypt\$ln=10,r=8,p=1\$[^$]{22}\$[^$]{43}$/,
    salted: true,
    upgradesMalformed: true,
    malformed: [
      '',
      's3cret',
      '{noop}s3cret',
      '{}s3cret',
      '{scrypt}',
      '{scrypt}s3cret',
      '{pbkdf2}$',
    ],
  },
);

describe('DelegatingPasswordEncoder', () => {
  it('matches hashes of every registered encoder and asks to upgrade the non-default ones', async () => {
    const { encoder, seen } = recording();
    const stored = `{pbkdf2}${await pbkdf2.encode('s3cret')}`;
    expect(await encoder.matches('s3cret', stored)).toBe(true);
    expect(await encoder.matches('other', stored)).toBe(false);
    expect(encoder.upgradeEncoding(stored)).toBe(true);
    expect(seen).toEqual([]);
  });

  it('asks to upgrade when the default encoder does', async () => {
    const { encoder } = recording();
    const weaker = new ScryptPasswordEncoder({
      cost: 2 ** 9,
      dangerouslyAllowWeakParameters: true,
    });
    const stored = `{scrypt}${await weaker.encode('s3cret')}`;
    expect(await encoder.matches('s3cret', stored)).toBe(true);
    expect(encoder.upgradeEncoding(stored)).toBe(true);
  });

  it('never sends a hash to the encoder of another id', async () => {
    const { encoder } = recording();
    const stored = `{pbkdf2}${await scrypt.encode('s3cret')}`;
    expect(await encoder.matches('s3cret', stored)).toBe(false);
  });

  describe('attacks: unknown or missing ids never match and are reported', () => {
    it.each<[string, string, string, string | null]>([
      ['an unknown id', 's3cret', '{unknown}s3cret', 'unknown'],
      ['a plain-text password without prefix', 's3cret', 's3cret', null],
      ['{noop} when noop is not registered', 's3cret', '{noop}s3cret', 'noop'],
      ['an empty id', 's3cret', '{}s3cret', null],
      ['an empty id and password', '', '{}', null],
      ['an unclosed prefix', 's3cret', '{scrypt', null],
      ['an unclosed prefix equal to the password', '{scrypt', '{scrypt', null],
      ['nested {noop} prefixes', 's3cret', '{noop}{noop}s3cret', 'noop'],
      ['a prefix that is not at the start', 's3cret', 'x{scrypt}s3cret', null],
      ['a closing brace first', 's3cret', '}{scrypt}s3cret', null],
      ['an id with a space', 'pw', '{my scrypt}pw', null],
      ['an id in other case', 's3cret', '{SCRYPT}s3cret', 'SCRYPT'],
      ['a prototype property as id', 's3cret', '{constructor}s3cret', 'constructor'],
      ['__proto__ as id', 's3cret', '{__proto__}s3cret', '__proto__'],
      ['toString as id', 's3cret', '{toString}s3cret', 'toString'],
      ['hasOwnProperty as id', 's3cret', '{hasOwnProperty}s3cret', 'hasOwnProperty'],
    ])('%s', async (_, raw, stored, id) => {
      const { encoder, seen } = recording();
      expect(await encoder.matches(raw, stored)).toBe(false);
      expect(encoder.upgradeEncoding(stored)).toBe(true);
      expect(seen).toEqual([{ type: 'unknown-password-encoder', id }]);
    });

    it('reports only the id, never the stored value', async () => {
      const { encoder, seen } = recording();
      await encoder.matches('x', '{legacy}$secret-hash$');
      await encoder.matches('x', 'hunter2');
      expect(JSON.stringify(seen)).not.toMatch(/secret-hash|hunter2/);
      expect(seen.map((e) => e.id)).toEqual(['legacy', null]);
    });

    it('reports to the default securityEvents when no publisher is given', async () => {
      const seen: SecurityEvent[] = [];
      const stop = securityEvents.on('unknown-password-encoder', (event) => {
        seen.push(event);
      });
      try {
        const encoder = new DelegatingPasswordEncoder().withEncoder('scrypt', scrypt);
        expect(await encoder.matches('pw', '{bcrypt}$2a$10$abc')).toBe(false);
      } finally {
        stop();
      }
      expect(seen).toEqual([{ type: 'unknown-password-encoder', id: 'bcrypt' }]);
    });

    it('returns false even when a listener throws', async () => {
      const warning = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      const { encoder, events } = recording();
      events.on('unknown-password-encoder', () => {
        throw new Error('listener bug');
      });
      events.on('*', () => Promise.reject(new Error('async listener bug')));
      expect(await encoder.matches('s3cret', 's3cret')).toBe(false);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warning).toHaveBeenCalledTimes(2);
    });

    it('returns false even when the publisher itself throws', async () => {
      class BrokenEvents extends SecurityEvents {
        override publish(): void {
          throw new Error('publisher bug');
        }
      }
      const encoder = new DelegatingPasswordEncoder({ events: new BrokenEvents() });
      expect(await encoder.matches('s3cret', '{x}s3cret')).toBe(false);
    });
  });

  describe('{noop}, only when registered', () => {
    const { events } = recording();
    const encoder = new DelegatingPasswordEncoder({
      encoders: { scrypt, noop },
      defaultId: 'scrypt',
      events,
    });

    it('matches {noop} hashes exactly, and asks to upgrade them', async () => {
      expect(await encoder.matches('s3cret', '{noop}s3cret')).toBe(true);
      expect(await encoder.matches('s3cret', '{noop}s3cret ')).toBe(false);
      expect(await encoder.matches('s3cret', '{noop}')).toBe(false);
      expect(encoder.upgradeEncoding('{noop}s3cret')).toBe(true);
    });

    it('reads only the first prefix: {noop}{noop}x stores the password "{noop}x"', async () => {
      expect(await encoder.matches('x', '{noop}{noop}x')).toBe(false);
      expect(await encoder.matches('{noop}x', '{noop}{noop}x')).toBe(true);
    });

    it('still never matches a hash without prefix', async () => {
      expect(await encoder.matches('s3cret', 's3cret')).toBe(false);
    });
  });

  it('never reads a non-string stored value as an id (nor reports one)', async () => {
    const { encoder, seen } = recording();
    for (const bad of [undefined, null, 1, {}, ['{noop}x'], ['{pbkdf2}x']]) {
      expect(await encoder.matches('x', bad as string)).toBe(false);
      expect(encoder.upgradeEncoding(bad as string)).toBe(true);
    }
    expect(seen).toEqual([]);
  });
});

describe('DelegatingPasswordEncoder configuration', () => {
  it('refuses to encode without a default id, and has nothing to upgrade to', async () => {
    const encoder = new DelegatingPasswordEncoder().withEncoder('scrypt', scrypt);
    const error = await encodingFailure(encoder.encode('s3cret'));
    expect(error.code).toBe('ERR_PASSWORD_NO_DEFAULT_ENCODER');
    const stored = `{scrypt}${await scrypt.encode('s3cret')}`;
    expect(await encoder.matches('s3cret', stored)).toBe(true);
    expect(encoder.upgradeEncoding(stored)).toBe(false);
  });

  it('is immutable: the builders return new encoders', () => {
    const empty = new DelegatingPasswordEncoder();
    const one = empty.withEncoder('scrypt', scrypt);
    const two = one.withEncoder('pbkdf2', pbkdf2).defaultEncoder('pbkdf2');
    expect(empty.ids).toEqual([]);
    expect(one.ids).toEqual(['scrypt']);
    expect(one.defaultId).toBeUndefined();
    expect(two.ids).toEqual(['scrypt', 'pbkdf2']);
    expect(two.defaultId).toBe('pbkdf2');
  });

  it('takes the encoders as an object or a Map', async () => {
    const fromMap = new DelegatingPasswordEncoder({
      encoders: new Map<string, PasswordEncoder>([['pbkdf2', pbkdf2]]),
      defaultId: 'pbkdf2',
    });
    expect(await fromMap.encode('pw')).toMatch(/^\{pbkdf2\}\$pbkdf2-sha256\$/);
    const options = Object.freeze({ encoders: Object.freeze({ pbkdf2 }), defaultId: 'pbkdf2' });
    expect(new DelegatingPasswordEncoder(options).ids).toEqual(['pbkdf2']);
  });

  it('accepts Spring-style ids', () => {
    expect(
      new DelegatingPasswordEncoder().withEncoder('pbkdf2@SpringSecurity_v5_8', pbkdf2).ids,
    ).toEqual(['pbkdf2@SpringSecurity_v5_8']);
  });

  it.each<[string, () => unknown]>([
    [
      'defaultId',
      () => new DelegatingPasswordEncoder({ encoders: { scrypt }, defaultId: 'argon2' }),
    ],
    ['defaultId', () => new DelegatingPasswordEncoder({ defaultId: 'scrypt' })],
    ['id', () => new DelegatingPasswordEncoder().defaultEncoder('scrypt')],
    ['id', () => new DelegatingPasswordEncoder().withEncoder('', scrypt)],
    ['id', () => new DelegatingPasswordEncoder().withEncoder('{scrypt}', scrypt)],
    ['id', () => new DelegatingPasswordEncoder().withEncoder('scr}pt', scrypt)],
    ['id', () => new DelegatingPasswordEncoder().withEncoder('my id', scrypt)],
    ['id', () => new DelegatingPasswordEncoder().withEncoder('x'.repeat(65), scrypt)],
    [
      'id',
      () =>
        new DelegatingPasswordEncoder().withEncoder('scrypt', scrypt).withEncoder('scrypt', pbkdf2),
    ],
    ['encoder', () => new DelegatingPasswordEncoder().withEncoder('x', {} as PasswordEncoder)],
    ['encoders', () => new DelegatingPasswordEncoder({ encoders: { '{x}': scrypt } })],
    [
      'encoders.x',
      () => new DelegatingPasswordEncoder({ encoders: { x: null as unknown as PasswordEncoder } }),
    ],
    [
      'encoders',
      () =>
        new DelegatingPasswordEncoder({
          encoders: 'scrypt' as unknown as Record<string, PasswordEncoder>,
        }),
    ],
    [
      'events',
      () => new DelegatingPasswordEncoder({ events: Object.create(null) as SecurityEvents }),
    ],
  ])('rejects a bad %s', (option, build) => {
    expect(configurationError(build)).toMatchObject({ code: 'ERR_INVALID_OPTION', option });
  });
});
