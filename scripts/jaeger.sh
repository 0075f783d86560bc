#!/usr/bin/env bash
# Jaeger v2 all-in-one for the tracing tests (test/integration/tracing.test.ts), built from the Go module proxy.
#   bash scripts/jaeger.sh build   builds it once into the deploy cache (kept by version) and prints its path
#   bash scripts/jaeger.sh path    prints where it is (or would be)
# The module's go.mod has replace directives, so `go install` refuses it: it is built inside the module, as its
# Makefile does. A fresh build takes a long time (minutes of CPU on two cores): .ci/run starts it in the background.
set -euo pipefail

JAEGER_VERSION=v1.76.0   # github.com/jaegertracing/jaeger: the v1 tag of the v2 binary (cmd/jaeger); test/integration/jaeger.ts names it too
DEPLOY_CACHE=${TOOLCALL_DEPLOY_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/toolcall-normalizer-deploy}
BINARY="$DEPLOY_CACHE/jaeger-$JAEGER_VERSION/jaeger"

case "${1:-}" in
  path) echo "$BINARY" ;;
  build)
    if [[ -x $BINARY ]]; then echo "$BINARY"; exit 0; fi
    command -v go >/dev/null || { echo "jaeger.sh: go not found" >&2; exit 1; }
    dir=$(go mod download -json "github.com/jaegertracing/jaeger@$JAEGER_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
    mkdir -p "$(dirname "$BINARY")"
    (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BINARY.partial" ./cmd/jaeger)
    mv "$BINARY.partial" "$BINARY"
    echo "$BINARY"
    ;;
  *) echo "usage: bash scripts/jaeger.sh build|path" >&2; exit 2 ;;
esac
