// Two "instances" of an app on one real Redis: each its own node-redis client (its
// own connections) and its own stores, as two processes would have.
import { expect } from 'vitest';
import {
  connectRedis,
  createRedisStores,
  type RedisStores,
  type RedisStoresOptions,
} from '../../src/redis/index.js';

export type Client = Awaited<ReturnType<typeof connectRedis>>;

export interface Instance {
  readonly client: Client;
  readonly stores: RedisStores;
}

/** Connects a client and makes the stores on it; the invalidation channel is live when it returns. */
export async function instance(
  url: string,
  options: Omit<RedisStoresOptions, 'client'> = {},
): Promise<Instance> {
  const client = await connectRedis(url);
  const stores = createRedisStores({ client, ...options });
  expect(await stores.ready(5_000)).toBe(true);
  return { client, stores };
}

export function closeAll(...instances: (Instance | undefined)[]): void {
  for (const one of instances) {
    if (one === undefined) continue;
    one.stores.close();
    one.client.destroy();
  }
}

/** A plain client for looking at the server (commandstats, keys). */
export function observer(url: string): Promise<Client> {
  return connectRedis(url);
}

/** How many times each command ran on the server since the last CONFIG RESETSTAT. */
export async function commandCounts(client: Client): Promise<Map<string, number>> {
  const info = await client.sendCommand<string>(['INFO', 'commandstats']);
  const counts = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gmu)) {
    counts.set(match[1] ?? '', Number(match[2]));
  }
  return counts;
}

/** Every key under `prefix` with its PTTL (ms; -1 when none). */
export async function keysWithTtl(client: Client, prefix: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  let cursor = '0';
  do {
    const reply = await client.sendCommand<[string, string[]]>([
      'SCAN',
      cursor,
      'MATCH',
      `${prefix}*`,
      'COUNT',
      '1000',
    ]);
    cursor = reply[0];
    for (const key of reply[1]) {
      found.set(key, Number(await client.sendCommand(['PTTL', key])));
    }
  } while (cursor !== '0');
  return found;
}
