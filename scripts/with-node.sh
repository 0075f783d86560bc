#!/usr/bin/env bash
# Runs a command on the Node.js of .nvmrc, as .ci/run does: where the node first on PATH is another line, the
# pinned one (scripts/node-lts.sh: fetched once from the npm registry, then cached) goes first on PATH, and one
# line on stderr says so. The npm scripts that run our code start through it:
#   bash scripts/with-node.sh npm run build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
want=$(tr -d ' \n\r' <"$root/.nvmrc")
want=${want#v}
have=$(node -p process.versions.node 2>/dev/null || echo none)
if [[ ${have%%.*} != "${want%%.*}" ]]; then
  echo "with-node: this machine's Node.js is $have; running on Node.js $want (.nvmrc, fetched once by scripts/node-lts.sh)" >&2
  bin=$(bash "$root/scripts/node-lts.sh")
  export PATH="$bin:$PATH"
fi
exec "$@"
