# Sourced by .ci/run and .ci/peers.sh. `use_node 22` puts Node 22 first on PATH for the rest
# of the (sub)shell: the machine has Node 20 only, so a newer Node comes from the `node` npm
# package (the official binary for this platform, from the npm registry), fetched by npx into
# its cache. npm, vitest and its workers, and every `node` the tests spawn (example servers,
# `node --import tsx`, `process.execPath`) then run on it. `use_node 20` accepts the machine's
# Node when it is a 20. Prints the version it proved.
use_node() {
  local major=$1 bin got
  got=$(node -v)
  if [ "${got%%.*}" != "v$major" ]; then
    bin=$(cd "${TMPDIR:-/tmp}" && npx -y -p "node@$major" -c 'dirname "$(command -v node)"')
    PATH="$bin:$PATH"
    export PATH
    hash -r
    got=$(node -v)
  fi
  if [ "${got%%.*}" != "v$major" ]; then
    echo "use_node: wanted Node $major, PATH gives $got" >&2
    return 1
  fi
  echo "node $got ($(command -v node)), npm $(npm -v)"
}
