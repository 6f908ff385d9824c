/**
 * Starts the NestJS example on 127.0.0.1 (`PORT`, default 3000), on Express, or on
 * Fastify with `NEST_PLATFORM=fastify`.
 */
import { createNestApp } from './app.js';

const platform = process.env['NEST_PLATFORM'] === 'fastify' ? 'fastify' : 'express';
const port = Number(process.env['PORT'] ?? 3000);
const app = await createNestApp(platform);
await app.listen(port, '127.0.0.1');
console.log(`portcullis NestJS example (${platform}) on ${await app.getUrl()}`);
