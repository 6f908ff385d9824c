/**
 * The small part of `oidc-provider` (which ships no types) that the test harness and
 * the example's development provider use. See https://github.com/panva/node-oidc-provider/blob/main/docs/README.md.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface KoaContextLike {
    readonly path: string;
    readonly method: string;
    status: number;
    body: unknown;
    type: string;
    readonly oidc?: { readonly route?: string } | undefined;
  }

  export type KoaMiddleware = (ctx: KoaContextLike, next: () => Promise<void>) => Promise<void>;

  export interface Interaction {
    readonly uid: string;
    readonly prompt: {
      readonly name: string;
      readonly reasons: readonly string[];
      readonly details: Readonly<Record<string, unknown>>;
    };
    readonly params: Readonly<Record<string, unknown>>;
    readonly session?: { readonly accountId?: string } | undefined;
    readonly grantId?: string | undefined;
  }

  export class Grant {
    constructor(properties: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: readonly string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
    static find(id: string): Promise<Grant | undefined>;
  }

  export interface Account {
    readonly accountId: string;
    claims(use: string, scope: string): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    readonly Grant: typeof Grant;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: KoaMiddleware): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
}
