/** What the NestJS tests share: the two platforms, and an application listening on 127.0.0.1. */
import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { TestingModule } from '@nestjs/testing';

export type Platform = 'express' | 'fastify';
export const PLATFORMS: readonly Platform[] = ['express', 'fastify'];

/** The testing module's application on `platform`, Nest's logger off. */
export function createApplication(moduleRef: TestingModule, platform: Platform): INestApplication {
  return platform === 'fastify'
    ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
    : moduleRef.createNestApplication({ logger: false });
}

/** Listens on 127.0.0.1 and a free port; the origin to fetch from. */
export async function listenLocally(app: INestApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}
