import {
  Inject,
  RequestMethod,
  type DynamicModule,
  type InjectionToken,
  type MiddlewareConsumer,
  type ModuleMetadata,
  type NestModule,
  type OnModuleInit,
  type OptionalFactoryDependency,
  type Provider,
} from '@nestjs/common';
import {
  APP_GUARD,
  DiscoveryModule,
  DiscoveryService,
  MetadataScanner,
  Reflector,
} from '@nestjs/core';
import { ConfigurationError } from '../core/errors.js';
import { PortcullisGuard } from './guard.js';
import { securityMiddleware } from './middleware.js';
import { resolveNestOptions, type NestSettings, type PortcullisModuleOptions } from './options.js';
import { RULE_METADATA } from './decorators.js';
import { HandlerRules } from './rules.js';

/** Options of `PortcullisModule.forRootAsync`: the module options from Nest's DI. */
export interface PortcullisModuleAsyncOptions {
  /** Modules whose providers the factory injects (e.g. `ConfigModule`). */
  readonly imports?: ModuleMetadata['imports'];
  /** The providers passed to `useFactory`, in order. */
  readonly inject?: (InjectionToken | OptionalFactoryDependency)[];
  /** Builds the options (see {@link PortcullisModuleOptions}). */
  readonly useFactory: (
    ...args: never[]
  ) => PortcullisModuleOptions | Promise<PortcullisModuleOptions>;
}

/** The module's settings, as a provider token. */
const SETTINGS = Symbol('portcullis.nestjs.settings');
const RULES = Symbol('portcullis.nestjs.rules');
const STARTUP_CHECK = Symbol('portcullis.nestjs.startup-check');

/** Nest's metadata key of a route handler's path (`@Get()`, `@Post()`, …). */
const PATH_METADATA = 'path';
/** @nestjs/graphql's metadata key of a resolver method (`@Query()`, `@Mutation()`, `@ResolveField()`, …). */
const RESOLVER_TYPE_METADATA = 'graphql:resolver_type';

/** Whether a method is a route handler of a controller or a GraphQL resolver method. */
function isHandler(reflector: Reflector, method: () => unknown): boolean {
  return (
    reflector.get(PATH_METADATA, method) !== undefined ||
    reflector.get(RESOLVER_TYPE_METADATA, method) !== undefined
  );
}

/**
 * portcullis for NestJS, on Express and on Fastify: a middleware on every route runs
 * the HTTP adapters' pipeline (firewall, authentication, URL rules when given) and
 * the rest of the request in the `SecurityContext`; a global guard then checks the
 * handler's rule from its decorators (`@Secured`, `@PreAuthorize`, `@PermitAll`,
 * `@DenyAll`, `@RolesAllowed`; a handler's own wins over its controller's; none
 * means the default policy, authenticated). Every rule is compiled when the
 * application starts.
 *
 * @example
 * ```ts no-check
 * @Module({
 *   imports: [PortcullisModule.forRoot({ authenticator, challenges: ['Basic realm="api"'] })],
 *   controllers: [PostsController],
 * })
 * export class AppModule {}
 * ```
 */
export class PortcullisModule implements NestModule {
  readonly #settings: NestSettings;

  /** @internal Nest makes the module, with its settings. */
  constructor(settings: NestSettings) {
    this.#settings = settings;
  }

  /** @internal Nest calls it: the pipeline's middleware on every route. */
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(securityMiddleware(this.#settings))
      .forRoutes({ path: '*', method: RequestMethod.ALL });
  }

  /**
   * The module with its options. A bad option throws now.
   *
   * @throws ConfigurationError naming the first bad option
   */
  static forRoot(options: PortcullisModuleOptions): DynamicModule {
    const settings = resolveNestOptions(options);
    return module([{ provide: SETTINGS, useValue: settings }], []);
  }

  /**
   * The module with options built by a factory from Nest's DI (configuration read
   * from `ConfigService`, an authenticator from a provider). A bad option fails the
   * application's start.
   */
  static forRootAsync(options: PortcullisModuleAsyncOptions): DynamicModule {
    if (
      typeof (options as Partial<PortcullisModuleAsyncOptions> | null)?.useFactory !== 'function'
    ) {
      throw new ConfigurationError('useFactory', 'must be a function returning the module options');
    }
    const factory = options.useFactory as (
      ...args: unknown[]
    ) => PortcullisModuleOptions | Promise<PortcullisModuleOptions>;
    return module(
      [
        {
          provide: SETTINGS,
          useFactory: async (...args: unknown[]) => resolveNestOptions(await factory(...args)),
          inject: options.inject ?? [],
        },
      ],
      options.imports ?? [],
    );
  }
}

// `@Inject(SETTINGS)` on the constructor's parameter, applied without decorator syntax.
Inject(SETTINGS)(PortcullisModule, undefined, 0);

function module(
  settings: Provider[],
  imports: NonNullable<ModuleMetadata['imports']>,
): DynamicModule {
  return {
    module: PortcullisModule,
    global: true,
    imports: [DiscoveryModule, ...imports],
    providers: [
      ...settings,
      {
        provide: RULES,
        useFactory: (s: NestSettings) => new HandlerRules(s.defaultPolicy),
        inject: [SETTINGS],
      },
      {
        provide: APP_GUARD,
        useFactory: (s: NestSettings, rules: HandlerRules) =>
          new PortcullisGuard(s, rules, new Reflector()),
        inject: [SETTINGS, RULES],
      },
      {
        provide: STARTUP_CHECK,
        useFactory: (discovery: DiscoveryService, s: NestSettings, rules: HandlerRules) =>
          new StartupCheck(discovery, s, rules),
        inject: [DiscoveryService, SETTINGS, RULES],
      },
    ],
  };
}

/**
 * At `app.init()`: compiles the rule of every route handler of every controller and
 * of every GraphQL resolver method (a bad rule fails the start, naming its handler)
 * and, in strict mode, refuses handlers with no decorator.
 */
class StartupCheck implements OnModuleInit {
  readonly #discovery: DiscoveryService;
  readonly #settings: NestSettings;
  readonly #rules: HandlerRules;

  constructor(discovery: DiscoveryService, settings: NestSettings, rules: HandlerRules) {
    this.#discovery = discovery;
    this.#settings = settings;
    this.#rules = rules;
  }

  onModuleInit(): void {
    const reflector = new Reflector();
    const scanner = new MetadataScanner();
    const undecorated = new Set<string>();
    const wrappers = [...this.#discovery.getControllers(), ...this.#discovery.getProviders()];
    for (const wrapper of wrappers) {
      const type = wrapper.metatype as (abstract new (...args: never[]) => unknown) | null;
      const prototype = (type as { prototype?: unknown } | null)?.prototype;
      if (typeof type !== 'function' || typeof prototype !== 'object' || prototype === null) {
        continue;
      }
      const methods = prototype as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = methods[name];
        if (typeof handler !== 'function') continue;
        const own = reflector.get(RULE_METADATA, handler as () => unknown) !== undefined;
        if (!own && !isHandler(reflector, handler as () => unknown)) continue;
        const metadata = HandlerRules.metadataOf(reflector, handler, type);
        this.#rules.ruleOf(metadata, () => `${type.name}.${name}`);
        if (metadata === undefined) undecorated.add(`${type.name}.${name}`);
      }
    }
    if (this.#settings.strict && undecorated.size > 0) {
      throw new ConfigurationError(
        'strict',
        `these handlers have no portcullis decorator on them or on their class: ${[...undecorated].join(', ')} (add @PermitAll(), @Secured(...), @PreAuthorize(...), ... or turn strict off for the default policy, ${this.#settings.defaultPolicy})`,
      );
    }
  }
}
