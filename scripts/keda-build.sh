#!/usr/bin/env bash
# Builds KEDA's three binaries from the Go module proxy, once per version (cached): the operator (keda), the
# external metrics API server (keda-adapter) and the admission webhooks (keda-admission-webhooks), plus a copy of
# the module's kustomize config (CRDs, RBAC, Deployments, APIService). stdout: the directory holding bin/ and config/.
# Used by test/k8s (the ScaledObject test) through scripts/k8s.sh keda.
#   KEDA_VERSION=v2.20.2  K8S_CACHE=~/.cache/toolcall-normalizer-k8s
set -euo pipefail
KEDA_VERSION=${KEDA_VERSION:-v2.20.2}
CACHE=${K8S_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/toolcall-normalizer-k8s}
OUT="$CACHE/keda-$KEDA_VERSION"
log() { printf 'keda-build: %s\n' "$*" >&2; }
die() { printf 'keda-build: ERROR: %s\n' "$*" >&2; exit 1; }

if [[ -f $OUT/.complete ]]; then echo "$OUT"; exit 0; fi
[[ ${KEDA_BUILD_CACHED_ONLY:-0} != 1 ]] || die "not built yet: $OUT"
command -v go >/dev/null || die "go not found (KEDA's binaries are built from the Go module proxy)"
mkdir -p "$CACHE"
exec 9>"$CACHE/keda-build.lock"
flock 9
if [[ -f $OUT/.complete ]]; then echo "$OUT"; exit 0; fi
started=$(date +%s)
rm -rf "$OUT.partial"; mkdir -p "$OUT.partial/bin"
export GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0

# The module's go.mod pins its k8s.io modules with absolute replace lines, so it builds as downloaded.
src="$CACHE/keda-src-$KEDA_VERSION"
if [[ ! -f $src/.ready ]]; then
  dir=$(go mod download -json "github.com/kedacore/keda/v2@$KEDA_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  rm -rf "$src"; cp -r "$dir" "$src"; chmod -R u+w "$src"
  (cd "$src" && go mod download) >&2
  touch "$src/.ready"
fi
ld="-s -w -X=github.com/kedacore/keda/v2/version.Version=${KEDA_VERSION#v} -X=github.com/kedacore/keda/v2/version.GitCommit=module-proxy"
log "building KEDA $KEDA_VERSION (operator, metrics API server, admission webhooks)"
(cd "$src" && go build -trimpath -ldflags "$ld" -o "$OUT.partial/bin/keda" ./cmd/operator \
  && go build -trimpath -ldflags "$ld" -o "$OUT.partial/bin/keda-adapter" ./cmd/adapter \
  && go build -trimpath -ldflags "$ld" -o "$OUT.partial/bin/keda-admission-webhooks" ./cmd/webhooks) >&2
cp -r "$src/config" "$OUT.partial/config"
echo "KEDA $KEDA_VERSION built in $(($(date +%s) - started))s" >"$OUT.partial/.complete"
rm -rf "$OUT"; mv "$OUT.partial" "$OUT"
log "$(cat "$OUT/.complete")"
echo "$OUT"
