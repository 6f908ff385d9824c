import { describe, expect, expectTypeOf, it } from 'vitest';
import * as root from '../../src/index.js';
import {
  ConfigurationError,
  PortcullisError,
  RequestRejectedError,
  ScryptPasswordEncoder,
  compileExpression,
  isPortcullisError,
  type FirewallRejectionReason,
  type RequestRejectedErrorCode,
} from '../../src/index.js';
import * as argon2 from '../../src/argon2/index.js';
import * as fastify from '../../src/fastify/index.js';
import * as fetchAdapter from '../../src/fetch/index.js';
import * as graphql from '../../src/graphql/index.js';
import * as jwt from '../../src/jwt/index.js';
import * as node from '../../src/node/index.js';
import * as oauth2 from '../../src/oauth2/index.js';
import * as redis from '../../src/redis/index.js';
import * as session from '../../src/session/index.js';
import * as trpc from '../../src/trpc/index.js';
import { NOW, SECRET, claimsAt, compact } from '../jwt/support.js';

/** Every subpath of the package, as its entry module. */
const SUBPATHS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  portcullis: root,
  'portcullis/argon2': argon2,
  'portcullis/node': node,
  'portcullis/fetch': fetchAdapter,
  'portcullis/fastify': fastify,
  'portcullis/trpc': trpc,
  'portcullis/graphql': graphql,
  'portcullis/jwt': jwt,
  'portcullis/session': session,
  'portcullis/oauth2': oauth2,
  'portcullis/redis': redis,
};

type ErrorClass = abstract new (...args: never[]) => Error;

/** Every exported class that is an `Error`, once each, with the subpath exporting it first. */
function exportedErrorClasses(): Map<ErrorClass, { readonly name: string; readonly from: string }> {
  const found = new Map<ErrorClass, { name: string; from: string }>();
  for (const [from, entry] of Object.entries(SUBPATHS)) {
    for (const [name, value] of Object.entries(entry)) {
      if (typeof value !== 'function') continue;
      const prototype: unknown = (value as { prototype?: unknown }).prototype;
      if (!(prototype instanceof Error)) continue;
      if (!found.has(value as ErrorClass)) found.set(value as ErrorClass, { name, from });
    }
  }
  return found;
}

/** An expression with an unknown function, typed `string` (a literal would not compile). */
const TYPO: string = "hasRol('USER')";

/** Instances of each public error class, made as portcullis makes them (by the export's name). */
const SAMPLES: Readonly<Record<string, () => readonly Error[]>> = {
  AuthenticationRequiredError: () => [new root.AuthenticationRequiredError()],
  AccessDeniedError: () => [new root.AccessDeniedError(undefined, 'rule')],
  RequestRejectedError: () => [
    new RequestRejectedError('ERR_REQUEST_REJECTED_ENCODED_SLASH'),
    new RequestRejectedError('ERR_REQUEST_REJECTED_HOST_NOT_ALLOWED'),
  ],
  UnavailableError: () => [new root.UnavailableError()],
  TooManyRequestsError: () => [new root.TooManyRequestsError('login', 'username', 3)],
  DeadlineExceededError: () => [new root.DeadlineExceededError('jwks', 100)],
  StoreUnavailableError: () => [new root.StoreUnavailableError('redis', 'session-revocation')],
  ConfigurationError: () => [new ConfigurationError('roles', 'must name at least one role')],
  PasswordEncodingError: () => [new root.PasswordEncodingError('custom encoder failed')],
  PasswordEncodingFailedError: () => [
    new root.PasswordEncodingFailedError('ERR_PASSWORD_TOO_LONG', 'too long'),
    new root.PasswordEncodingFailedError('ERR_PASSWORD_MALFORMED', 'malformed'),
    new root.PasswordEncodingFailedError('ERR_PASSWORD_NO_DEFAULT_ENCODER', 'no default'),
    new root.PasswordEncodingFailedError('ERR_PASSWORD_HASH_FAILED', 'failed'),
  ],
  UserRepositoryError: () => [
    new root.UserRepositoryError('ERR_USER_EXISTS', 'alice'),
    new root.UserRepositoryError('ERR_USER_NOT_FOUND', 'alice'),
    new root.UserRepositoryError('ERR_USER_RECORD_MALFORMED', 'alice', 'password'),
  ],
  MemoryStoreFullError: () => [new root.MemoryStoreFullError('memory revocation store', 2)],
  RefreshStoreFullError: () => [new jwt.RefreshStoreFullError(2)],
  SessionStoreFullError: () => [new session.SessionStoreFullError(2)],
  SessionTooLargeError: () => [new session.SessionTooLargeError()],
  ExpressionSyntaxError: () => [thrown(() => compileExpression(TYPO))],
  JwtError: () => [new jwt.JwtError('ERR_JWT_EXPIRED', 'The token expired')],
  OAuth2Error: () => [new oauth2.OAuth2Error('ERR_OAUTH2_STATE', 'The state does not match')],
  SchemaSecurityError: () => [
    new graphql.SchemaSecurityError([
      {
        coordinate: 'Query.posts',
        directive: '@secured',
        code: 'ERR_GRAPHQL_DIRECTIVE_ARGUMENT',
        message: 'roles must name at least one role',
        location: undefined,
      },
    ]),
  ],
};

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('expected a throw');
}

describe('one error style', () => {
  const classes = exportedErrorClasses();

  it('finds the error classes of every subpath', () => {
    const names = [...classes.values()].map(({ name }) => name);
    // A walk that finds nothing would pass everything below.
    expect(names).toEqual(
      expect.arrayContaining(['PortcullisError', 'ConfigurationError', 'JwtError', 'OAuth2Error']),
    );
    expect(names.length).toBeGreaterThanOrEqual(Object.keys(SAMPLES).length);
  });

  for (const [errorClass, { name, from }] of exportedErrorClasses()) {
    if (errorClass === PortcullisError) continue;

    it(`${name} (${from}) is a portcullis error with a stable code and its class name`, () => {
      const samples = SAMPLES[name];
      // A new public error class needs a sample here, and so gets checked.
      expect(samples, `no sample of ${name}`).toBeDefined();
      expect(errorClass.name).toBe(name);
      for (const error of samples?.() ?? []) {
        expect(error).toBeInstanceOf(errorClass);
        if (errorClass === ConfigurationError) {
          expect(error).toBeInstanceOf(TypeError);
          expect(error).toMatchObject({ option: 'roles' });
        } else {
          expect(error).toBeInstanceOf(PortcullisError);
        }
        expect(isPortcullisError(error)).toBe(true);
        const { code } = error as { code?: unknown };
        expect(code).toMatch(/^ERR_[A-Z0-9_]+$/u);
        expect(error.name).toBe(name);
        expect(error.message.length).toBeGreaterThan(0);
      }
    });
  }

  it('isPortcullisError refuses other errors and non-errors', () => {
    for (const other of [
      new Error('x'),
      new TypeError('x'),
      Object.assign(new Error('x'), { code: 'ERR_ACCESS_DENIED' }),
      { code: 'ERR_ACCESS_DENIED', name: 'AccessDeniedError', message: 'x' },
      null,
      'ERR_ACCESS_DENIED',
    ]) {
      expect(isPortcullisError(other)).toBe(false);
    }
  });

  it('a code is set on the instance of each failure, not shared by the class', () => {
    const [exists, missing] = SAMPLES.UserRepositoryError?.() ?? [];
    expect(exists).toMatchObject({ code: 'ERR_USER_EXISTS' });
    expect(missing).toMatchObject({ code: 'ERR_USER_NOT_FOUND' });
    expect(exists).not.toHaveProperty('reason');
    expect(new RequestRejectedError('ERR_REQUEST_REJECTED_DOUBLE_SLASH')).toMatchObject({
      code: 'ERR_REQUEST_REJECTED_DOUBLE_SLASH',
      message: 'The request was rejected (double slash)',
    });
  });

  it('the store-full errors of the protocols are MemoryStoreFullErrors with its one code', () => {
    for (const error of [new jwt.RefreshStoreFullError(2), new session.SessionStoreFullError(2)]) {
      expect(error).toBeInstanceOf(root.MemoryStoreFullError);
      expect(error).toBeInstanceOf(root.UnavailableError);
      expect(error).toMatchObject({ code: 'ERR_STORE_FULL', maxEntries: 2 });
    }
  });

  it('each firewall reason has its RequestRejectedError code', () => {
    type Snake<S extends string> = S extends `${infer A}-${infer B}` ? `${A}_${Snake<B>}` : S;
    expectTypeOf<`ERR_REQUEST_REJECTED_${Uppercase<Snake<FirewallRejectionReason>>}`>().toEqualTypeOf<RequestRejectedErrorCode>();
  });
});

describe('no secret in the message of an error built from user input', () => {
  const MARKER = 'hunter2-SECRET-MARKER';

  it('PasswordEncodingFailedError: a too-long or malformed password is not echoed', async () => {
    const encoder = new ScryptPasswordEncoder({ maxPasswordLength: 32 });
    for (const [password, code] of [
      [MARKER.repeat(4), 'ERR_PASSWORD_TOO_LONG'],
      [`${MARKER}\uD800`, 'ERR_PASSWORD_MALFORMED'],
    ] as const) {
      const error: unknown = await encoder.encode(password).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(root.PasswordEncodingFailedError);
      expect(error).toMatchObject({ code });
      expect(String(error)).not.toContain(MARKER);
      expect(JSON.stringify(error)).not.toContain(MARKER);
    }
  });

  it('JwtError: a forged token, its claims and the key are not echoed', async () => {
    const authenticator = new jwt.JwtAuthenticator(new jwt.JwtConfig(SECRET).clock(() => NOW));
    const forged = compact({ alg: 'HS256', typ: 'JWT' }, claimsAt({ sub: MARKER }), MARKER);
    const error: unknown = await authenticator.validateToken(forged).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(jwt.JwtError);
    expect(error).toMatchObject({ code: expect.stringMatching(/^ERR_JWT_/u) as unknown });
    for (const secret of [MARKER, forged, SECRET]) {
      expect(String(error)).not.toContain(secret);
      expect(JSON.stringify(error)).not.toContain(secret);
    }
  });
});
