#!/usr/bin/env bash
# Builds the binaries of a single-node Kubernetes cluster from the Go module proxy, once per version (cached):
# kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy, kubectl, kubeadm, etcd, etcdctl
# and the static pause binary. stdout: the bin directory. Used by scripts/k8s.sh.
#   K8S_VERSION=v1.34.4  ETCD_VERSION=v3.6.16  K8S_CACHE=~/.cache/toolcall-normalizer-k8s
set -euo pipefail
K8S_VERSION=${K8S_VERSION:-v1.34.4}
ETCD_VERSION=${ETCD_VERSION:-v3.6.16}
CACHE=${K8S_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/toolcall-normalizer-k8s}
BIN="$CACHE/bin-$K8S_VERSION-etcd-$ETCD_VERSION"
log() { printf 'k8s-build: %s\n' "$*" >&2; }
die() { printf 'k8s-build: ERROR: %s\n' "$*" >&2; exit 1; }

if [[ -f $BIN/.complete ]]; then echo "$BIN"; exit 0; fi
[[ ${K8S_BUILD_CACHED_ONLY:-0} != 1 ]] || die "not built yet: $BIN"
command -v go >/dev/null || die "go not found (the cluster's binaries are built from the Go module proxy)"
command -v gcc >/dev/null || die "gcc not found (the pause binary is built with gcc -static; apt-get install gcc libc6-dev)"
mkdir -p "$CACHE"
exec 9>"$CACHE/build.lock"
flock 9
if [[ -f $BIN/.complete ]]; then echo "$BIN"; exit 0; fi
started=$(date +%s)
rm -rf "$BIN.partial"; mkdir -p "$BIN.partial"
export GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0

# Kubernetes: the module zip lacks staging/ and vendor/, so its staging replace lines point at the published modules.
src="$CACHE/src-$K8S_VERSION"
if [[ ! -f $src/.ready ]]; then
  dir=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  rm -rf "$src"; cp -r "$dir" "$src"; chmod -R u+w "$src"; rm -f "$src/go.work" "$src/go.work.sum"
  staging=v0.${K8S_VERSION#v1.}
  sed -i -E "s#^(\s*k8s\.io/[A-Za-z0-9._-]+) => \./staging/src/k8s\.io/[A-Za-z0-9._-]+#\1 => \1 $staging#" "$src/go.mod"
  (cd "$src" && go mod download) >&2
  touch "$src/.ready"
fi
minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
ld="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ld+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
done
log "building Kubernetes $K8S_VERSION (cold: about 14 minutes on 2 cores)"
(cd "$src" && go build -trimpath -ldflags "$ld" -o "$BIN.partial/" ./cmd/kube-apiserver ./cmd/kube-controller-manager \
  ./cmd/kube-scheduler ./cmd/kubelet ./cmd/kube-proxy ./cmd/kubectl ./cmd/kubeadm) >&2

# etcd: go install refuses the server module (relative replace lines), so a scratch module requires it.
edir="$CACHE/etcd-$ETCD_VERSION"
mkdir -p "$edir"
cat >"$edir/go.mod" <<GOMOD
module local/etcd
go 1.24
require (
	go.etcd.io/etcd/server/v3 $ETCD_VERSION
	go.etcd.io/etcd/etcdctl/v3 $ETCD_VERSION
)
GOMOD
printf 'package tools\nimport (\n\t_ "go.etcd.io/etcd/server/v3"\n\t_ "go.etcd.io/etcd/etcdctl/v3"\n)\n' >"$edir/tools.go"
log "building etcd $ETCD_VERSION"
(cd "$edir" && go mod tidy >&2 && go build -trimpath -ldflags "-s -w" -o "$BIN.partial/etcd" go.etcd.io/etcd/server/v3 \
  && go build -trimpath -ldflags "-s -w" -o "$BIN.partial/etcdctl" go.etcd.io/etcd/etcdctl/v3) >&2

gcc -static -O2 -DVERSION="$K8S_VERSION" -o "$BIN.partial/pause" "$src/build/pause/linux/pause.c"
echo "$K8S_VERSION etcd $ETCD_VERSION built in $(( $(date +%s) - started ))s" >"$BIN.partial/.complete"
rm -rf "$BIN"; mv "$BIN.partial" "$BIN"
log "$(cat "$BIN/.complete")"
echo "$BIN"
