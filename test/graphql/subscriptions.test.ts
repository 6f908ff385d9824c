import { parse, subscribe, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { SecurityContext } from '../../src/index.js';
import { ADMIN, ALICE, denials, secureSchema } from './schema.js';

function counterSchema(options?: { securityContext?: boolean }) {
  const started = { count: 0 };
  const schema = secureSchema(
    `type Query { ok: Boolean }
     type Subscription {
       ticks: Int @secured(roles: "ADMIN")
       news: String @authenticated
     }`,
    {
      Subscription: {
        ticks: {
          subscribe: async function* () {
            started.count += 1;
            await Promise.resolve();
            yield { ticks: 1 };
            yield { ticks: 2 };
          },
        },
        news: {
          subscribe: async function* () {
            started.count += 1;
            await Promise.resolve();
            yield { news: SecurityContext.getUser()?.username ?? 'nobody' };
          },
        },
      },
    },
    options,
  );
  return { schema, started };
}

async function collect(result: unknown): Promise<ExecutionResult[]> {
  const out: ExecutionResult[] = [];
  for await (const event of result as AsyncIterable<ExecutionResult>) out.push(event);
  return out;
}

describe('subscriptions', () => {
  it('refuses at subscribe time: the source stream is never created', async () => {
    const { schema, started } = counterSchema();
    for (const user of [null, ALICE]) {
      const result = await subscribe({
        schema,
        document: parse('subscription { ticks }'),
        contextValue: { user },
      });
      expect(Symbol.asyncIterator in result).toBe(false);
      expect(denials(result as ExecutionResult)).toEqual({
        ticks: user === null ? 'UNAUTHENTICATED' : 'FORBIDDEN',
      });
    }
    expect(started.count).toBe(0);
  });

  it('streams to an allowed user, with the user in the SecurityContext of the source', async () => {
    const { schema, started } = counterSchema();
    const ticks = await subscribe({
      schema,
      document: parse('subscription { ticks }'),
      contextValue: { user: ADMIN },
    });
    expect(await collect(ticks)).toEqual([{ data: { ticks: 1 } }, { data: { ticks: 2 } }]);
    const news = await subscribe({
      schema,
      document: parse('subscription { news }'),
      contextValue: { user: ALICE },
    });
    expect(await collect(news)).toEqual([{ data: { news: 'alice' } }]);
    expect(started.count).toBe(2);
  });

  it('with securityContext: false, streams without binding the user: the rule still applies', async () => {
    const { schema } = counterSchema({ securityContext: false });
    const news = await subscribe({
      schema,
      document: parse('subscription { news }'),
      contextValue: { user: ALICE },
    });
    expect(await collect(news)).toEqual([{ data: { news: 'nobody' } }]);
    const ticks = await subscribe({
      schema,
      document: parse('subscription { ticks }'),
      contextValue: { user: ALICE },
    });
    expect(denials(ticks as ExecutionResult)).toEqual({ ticks: 'FORBIDDEN' });
  });
});
