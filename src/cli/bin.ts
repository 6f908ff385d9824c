#!/usr/bin/env node
// The `portcullis` command (`npx portcullis check-schema schema.graphql`).

try {
  // Loaded here, so a missing peer (graphql) is reported rather than crashing.
  const { main } = await import('./check-schema.js');
  process.exitCode = await main(process.argv.slice(2), {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  });
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  const missing = (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND';
  process.stderr.write(
    missing
      ? `portcullis check-schema needs the packages graphql and @graphql-tools/utils: ${message}\n`
      : `${message}\n`,
  );
  process.exitCode = 2;
}
