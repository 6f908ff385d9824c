#!/usr/bin/env bash
# The peers job: the whole suite against the newest versions of every peer, then
# against the oldest versions the peerDependencies ranges admit, each on the Node the set needs.
# Each set is installed into a temporary copy of the checkout (without node_modules), which is
# deleted afterwards: this script never touches the checkout's package.json, lock or node_modules.
# Usage: bash .ci/peers.sh [newest] [oldest]   (both when none is named)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
# shellcheck source=.ci/use-node.sh
. .ci/use-node.sh

step() { printf '\n== peers: %s\n' "$*"; }

# The temporary copies, deleted when the script exits, whether a set passed or failed.
copies=()
cleanup() { if [ "${#copies[@]}" -gt 0 ]; then rm -rf "${copies[@]}"; fi; }
trap cleanup EXIT

# The whole suite runs with each set: the peers are loaded from many folders (the adapters, the
# examples, the end-to-end tests, and the sources' own imports from config and property tests), and
# a list of folders would go stale.
# Newest: the newest major of every peer, and the newest version in it. graphql 17, iron-session
# 9 and @graphql-tools/utils 13 need Node 22 (utils 13: 22.18), fastify 5's newest
# light-my-request (cookie 2) too: this set runs on Node 24, without the light-my-request pin.
# @graphql-tools/schema (a test dependency) moves with utils: 10.x would keep a utils 10 of its own.
newest=(
  graphql@^17 iron-session@^9 @graphql-tools/utils@^13 @graphql-tools/schema@^11 fastify@^5
  @trpc/server@^11 @trpc/client@^11 jose@^6 oauth4webapi@^3 redis@^6 'argon2@<1'
  @nestjs/common@^11 @nestjs/core@^11 @nestjs/platform-express@^11 @nestjs/platform-fastify@^11
  @nestjs/testing@^11
)
# The majors of @graphql-tools/utils between the oldest and the newest, each run with the GraphQL
# suites in the newest set's copy.
utils_between=(11 12)
# Oldest: the lowest version each peerDependencies range (and argon2's, an optional dependency) admits (@trpc/client must equal
# @trpc/server), on Node 20, the lowest Node `engines` admits. The ranges' floors are what this
# set found: @trpc/server 11.22.1 is the first whose ProcedureBuilder takes the error shape our
# types pass; jose 6.2.13 the first that keeps the abort as the cause when a key-set body
# stalls (before it, no `deadline-exceeded` event; 6.0.0's own types do not resolve under
# NodeNext); fastify 4.26.0 the first 4.x under which tRPC's Fastify adapter answers behind our
# plugin (4.0 also answers 415 before a route's 404 and lacks types test/node/types.test-d.ts
# checks). The Nest platforms and @nestjs/testing (test dependencies) move with @nestjs/core
# (platform-fastify 11.0.0 still declares @nestjs/* ^10 as peers: --force installs it); the
# NestJS tests but GraphQL's passed on this set, swapped in by hand.
oldest=(
  graphql@16.8.0 iron-session@8.0.0 @graphql-tools/utils@10.0.0 fastify@4.26.0
  @trpc/server@11.22.1 @trpc/client@11.22.1 jose@6.2.13 oauth4webapi@3.0.0 redis@6.0.0
  argon2@0.43.0
  @nestjs/common@11.0.0 @nestjs/core@11.0.0 @nestjs/platform-express@11.0.0
  @nestjs/platform-fastify@11.0.0 @nestjs/testing@11.0.0
)
# test/package/support-table.test.ts checks both sets against package.json's ranges.
peers=(graphql iron-session @graphql-tools/utils fastify @trpc/server jose oauth4webapi redis argon2
  @nestjs/common @nestjs/core)

# A copy of the checkout's files (not node_modules, dist or git data) in a temporary folder.
copy_checkout() {
  local dest=$1
  tar -C "$root" --exclude=./.git --exclude=node_modules --exclude=./dist --exclude=./.tmp \
    --exclude=./.bench-build -cf - . | tar -C "$dest" -xf -
}

versions() {
  node -e '
    for (const name of process.argv.slice(1)) {
      const v = require(require("path").resolve("node_modules", name, "package.json")).version;
      console.log(`${name} ${v}`);
    }' "${peers[@]}" "$@"
}

run_suites() {
  local label=$1
  shift
  mkdir -p .tmp
  npx vitest run "$@" --reporter=default --reporter=json --outputFile.json=".tmp/$label.json"
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    if (r.numTotalTests === 0) { console.error("no test ran"); process.exit(1); }
    console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed`);
    if (r.numFailedTests > 0 || !r.success) process.exit(1);' ".tmp/$label.json"
}

# $1: newest|oldest, $2: Node major, rest: the npm specs to install.
peer_set() {
  local label=$1 major=$2
  shift 2
  local work
  work=$(mktemp -d "${TMPDIR:-/tmp}/portcullis-peers-$label-XXXXXX")
  copies+=("$work")
  (
    set -euo pipefail
    step "$label: Node $major"
    use_node "$major"
    copy_checkout "$work"
    cd "$work"
    # The light-my-request pin (package.json `overrides`) exists for fastify 5 on Node 20 only;
    # neither set keeps it, and the lock's entries for it go too, so that npm picks the newest
    # light-my-request fastify admits.
    node -e '
      const fs = require("fs");
      const p = JSON.parse(fs.readFileSync("package.json", "utf8"));
      delete p.overrides;
      fs.writeFileSync("package.json", JSON.stringify(p, null, 2) + "\n");
      const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8"));
      for (const key of Object.keys(lock.packages)) {
        if (/(^|\/)node_modules\/light-my-request(\/|$)/u.test(key)) delete lock.packages[key];
      }
      fs.writeFileSync("package-lock.json", JSON.stringify(lock, null, 2) + "\n");'
    step "$label: npm install $*"
    cp package.json package.json.declared
    npm install --no-audit --no-fund --save-exact --force --loglevel=error "$@"
    # npm wrote the installed versions into package.json (argon2's optionalDependencies
    # among them); the suite checks the declared ranges (the support table, the sets
    # above), so they are put back: only node_modules holds the set.
    node -e '
      const fs = require("fs");
      const declared = JSON.parse(fs.readFileSync("package.json.declared", "utf8"));
      const p = JSON.parse(fs.readFileSync("package.json", "utf8"));
      for (const field of ["peerDependencies", "optionalDependencies"]) p[field] = declared[field];
      fs.writeFileSync("package.json", JSON.stringify(p, null, 2) + "\n");
      fs.rmSync("package.json.declared");'
    step "$label: installed"
    versions @graphql-tools/schema @trpc/client
    step "$label: typecheck of the sources (the types users compile against)"
    npx tsc -p tsconfig.build.json --noEmit
    step "$label: the suite"
    run_suites "$label"
    if [ "$label" = newest ]; then
      for major in "${utils_between[@]}"; do
        step "$label: @graphql-tools/utils $major with the GraphQL suites"
        npm install --no-audit --no-fund --no-save --force --loglevel=error "@graphql-tools/utils@^$major"
        versions
        npx tsc -p tsconfig.build.json --noEmit
        run_suites "$label-utils-$major" test/graphql test/examples/graphql.test.ts test/rate-limit/graphql.test.ts test/cli
      done
    fi
  )
}

sets=("$@")
if [ "${#sets[@]}" -eq 0 ]; then sets=(newest oldest); fi
for set in "${sets[@]}"; do
  case $set in
    newest) peer_set newest 24 "${newest[@]}" ;;
    oldest) peer_set oldest 20 "${oldest[@]}" ;;
    *) echo "unknown set: $set (newest, oldest)" >&2; exit 2 ;;
  esac
done
