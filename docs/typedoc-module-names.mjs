// @ts-check
// A local TypeDoc plugin: names every entry point's module after the package subpath it is
// exported as. The entry points with a `@module portcullis/…` tag are named so already;
// TypeDoc names the others after their folder (src/fastify/index.ts → `fastify`,
// src/index.ts → `index`), which become `portcullis/fastify` and `portcullis`, so that the
// API reference's pages and sidebar read as imports do.
import { Converter, ReflectionKind } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      if (module.name === 'portcullis' || module.name.startsWith('portcullis/')) continue;
      module.name = module.name === 'index' ? 'portcullis' : `portcullis/${module.name}`;
    }
  });
}
