import Fastify from 'fastify';
import { describe, expectTypeOf, it } from 'vitest';
import type { AuthenticatedUser, SecurityTransform } from '../../src/index.js';
import { security as fastifySecurity } from '../../src/fastify/index.js';
import {
  userOf as getFetchUser,
  withSecurity as withFetchSecurity,
} from '../../src/fetch/index.js';
import { userOf, withSecurity, type SecuredRequest } from '../../src/node/index.js';

declare const transform: SecurityTransform;

describe('adapter types', () => {
  it('types the user on node requests', () => {
    withSecurity(transform, (req, res) => {
      expectTypeOf(req).toEqualTypeOf<SecuredRequest>();
      expectTypeOf(req.user).toEqualTypeOf<AuthenticatedUser | null>();
      expectTypeOf(userOf(req)).toEqualTypeOf<AuthenticatedUser | null>();
      res.end();
    });
  });

  it('passes the user and extra arguments to Fetch handlers', () => {
    const handler = withFetchSecurity(transform, (request, { user }, env: { region: string }) => {
      expectTypeOf(user).toEqualTypeOf<AuthenticatedUser | null>();
      expectTypeOf(env.region).toBeString();
      expectTypeOf(getFetchUser(request)).toEqualTypeOf<AuthenticatedUser | null>();
      return new Response('ok');
    });
    expectTypeOf(handler).parameters.toEqualTypeOf<[Request, { region: string }]>();
    expectTypeOf(handler).returns.toEqualTypeOf<Promise<Response>>();
  });

  it('declares request.user and reply.cspNonce on Fastify', () => {
    const app = Fastify();
    void app.register(fastifySecurity, { transform });
    app.get('/', (request, reply) => {
      expectTypeOf(request.user).toEqualTypeOf<AuthenticatedUser | null>();
      expectTypeOf(reply.cspNonce).toEqualTypeOf<string | undefined>();
      return 'ok';
    });
    // @ts-expect-error the plugin needs a transform
    void app.register(fastifySecurity, {});
  });
});
