/**
 * A CommonJS consumer (`.cts`; a `.ts` file in a package without `"type": "module"` is
 * one too): its imports are `require()` calls, which load portcullis (ES modules) on
 * Node 20.19 and later. TypeScript allows them under `module` `nodenext` (from 5.8);
 * `node16` refuses them (TS1471). `.ci/consumer-check.mjs` compiles it with the
 * module settings of `.ci/consumer-matrix.mjs` marked `commonjsConsumer`.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- what a CommonJS file writes */
import portcullis = require('portcullis');
import argon2 = require('portcullis/argon2');
import fastify = require('portcullis/fastify');
import fetch = require('portcullis/fetch');
import graphql = require('portcullis/graphql');
import jwt = require('portcullis/jwt');
import nestjs = require('portcullis/nestjs');
import node = require('portcullis/node');
import oauth2 = require('portcullis/oauth2');
import redis = require('portcullis/redis');
import session = require('portcullis/session');
import testing = require('portcullis/testing');
import trpc = require('portcullis/trpc');

const transform = new portcullis.SecurityTransform();
const user: portcullis.User | null = null;
const config = new jwt.JwtConfig('a-secret-of-at-least-32-bytes-long!!');
const api = {
  encoder: new argon2.Argon2PasswordEncoder(),
  plugin: fastify.security,
  fetchHandler: fetch.withSecurity(transform, () => new Response('ok')),
  directives: graphql.securityDirectives(),
  listener: node.withSecurity(transform, (_req, res) => {
    res.end();
  }),
  google: oauth2.OAuth2Provider.Google,
  nestModule: nestjs.PortcullisModule.forRoot({
    authenticator: portcullis.AuthenticationManager.inMemoryAuthentication(),
  }),
  createRedisStores: redis.createRedisStores,
  session: new session.SessionConfig(),
  createProcedures: trpc.createProcedures,
  admin: testing.mockUser('admin', { roles: ['ADMIN'] }),
  clock: testing.manualClock(0),
};

export = { transform, user, config, api };
