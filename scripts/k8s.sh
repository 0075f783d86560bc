#!/usr/bin/env bash
# A real single-node Kubernetes cluster on this machine, for the chart's tests (test/k8s): etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kubelet and kube-proxy of one pinned version, built from the Go module
# proxy (scripts/k8s-build.sh, cached), on a containerd of its own (Debian's containerd, runc and CNI plugins).
#
#   bash scripts/k8s.sh build   only build (or find cached) the binaries; prints K8S_BIN=<dir>
#   bash scripts/k8s.sh up      start the cluster (idempotent), import the pause image and the worker image
#                               (WORKER_IMAGE, from `npm run images`; skipped when unset), wait for node Ready and the
#                               default service account; on success prints on stdout:
#                                 KUBECONFIG=<state>/admin.conf
#                                 K8S_BIN=<dir of kubectl, ...>
#                                 K8S_HOST_IP=<the node's address, where pods reach services of the host>
#                                 K8S_CONTAINERD_ADDRESS=<the cluster's containerd socket>
#   bash scripts/k8s.sh down    stop everything by pid (kubelet and pods, proxy, scheduler, controller manager,
#                               API server, etcd, containerd), remove the bridges, network namespaces, the
#                               KUBE-/CNI- iptables chains, mounts and cgroups it made, and the state (also after a
#                               failed up)
#   bash scripts/k8s.sh status  exit 0 when the API server answers and the node is Ready
#   bash scripts/k8s.sh keda    on the running cluster: KEDA's operator, metrics API server and admission webhooks
#                               (scripts/keda-build.sh, KEDA_VERSION), ready when the external metrics API is
#                               Available; the operator logs at KEDA_LOG_LEVEL (info, debug)
#
# Addresses: only loopback and what this script creates. The pod bridge K8S_BRIDGE (K8S_HOST_IP/24, pods in
# K8S_POD_CIDR) is the node IP and the API server's address; the service range routes to an empty bridge
# (K8S_SVC_BRIDGE), so an untranslated packet never leaves the machine; no masquerading. Services of the host
# that pods use (Kafka, the registry) listen on K8S_HOST_IP (scripts/stack.sh: STACK_HOST).
#
# Environment (all optional):
#   K8S_VERSION=v1.34.4 ETCD_VERSION=v3.6.16  (scripts/k8s-build.sh; 1.34 is the last line that runs on cgroup v1)
#   K8S_STATE_DIR=<repo>/.k8s   K8S_BRIDGE=tcn0   K8S_SVC_BRIDGE=tcnsvc0
#   K8S_POD_CIDR=10.244.0.0/24  K8S_HOST_IP=10.244.0.1   K8S_SERVICE_CIDR=10.96.0.0/24   K8S_TIMEOUT=120
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
STATE=${K8S_STATE_DIR:-$REPO_DIR/.k8s}
BRIDGE=${K8S_BRIDGE:-tcn0}
SVC_BRIDGE=${K8S_SVC_BRIDGE:-tcnsvc0}
POD_CIDR=${K8S_POD_CIDR:-10.244.0.0/24}
HOST_IP=${K8S_HOST_IP:-10.244.0.1}
SERVICE_CIDR=${K8S_SERVICE_CIDR:-10.96.0.0/24}
TIMEOUT=${K8S_TIMEOUT:-120}
NODE=${K8S_NODE_NAME:-tcn-node}
K8S_VERSION=${K8S_VERSION:-v1.34.4}
export K8S_VERSION
CTR_SOCK="$STATE/containerd/containerd.sock"
PAUSE_IMAGE=registry.k8s.io/pause:3.10
# KEDA's images, made here from its binaries (no registry is reachable): never pulled.
KEDA_IMAGE_PREFIX=toolcall-k8s.local/kedacore
KEDA_LOG_LEVEL=${KEDA_LOG_LEVEL:-info}
# Processes in start order; down stops them in reverse (the API server hangs on SIGTERM once etcd is gone).
COMPONENTS=(containerd etcd kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubelet)

log() { printf 'k8s: %s\n' "$*" >&2; }
die() { printf 'k8s: ERROR: %s\n' "$*" >&2; exit 1; }

# One line naming the part of the machine that cannot run a cluster, or nothing.
machine_problem() {
  [[ $(id -u) -eq 0 ]] || { echo "not root (a kubelet and containerd need root)"; return; }
  [[ -d /sys/fs/cgroup/memory || -f /sys/fs/cgroup/cgroup.controllers ]] || { echo "no cgroups mounted at /sys/fs/cgroup (the kubelet needs the memory and cpu controllers)"; return; }
  local t
  for t in containerd runc ip iptables iptables-save; do
    command -v "$t" >/dev/null || { echo "$t not found (apt-get install containerd runc iproute2 iptables)"; return; }
  done
  [[ -x /usr/lib/cni/bridge && -x /usr/lib/cni/host-local && -x /usr/lib/cni/loopback ]] \
    || { echo "no CNI plugins in /usr/lib/cni (apt-get install containernetworking-plugins)"; return; }
  command -v docker >/dev/null || { echo "docker not found (the images are exported with docker save)"; return; }
}

pid_of() { [[ -f $STATE/pids/$1 ]] && cat "$STATE/pids/$1"; }
alive() { local p; p=$(pid_of "$1") && [[ -n $p ]] && kill -0 "$p" 2>/dev/null; }

start_bg() { # name, command...
  local name=$1; shift
  alive "$name" && return 0
  setsid "$@" >>"$STATE/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/pids/$name"
}

wait_for() { # description, command...
  local what=$1 deadline=$((SECONDS + TIMEOUT)); shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "$what not ready within ${TIMEOUT}s (logs: $STATE/logs)"
    sleep 0.5
  done
}

kc() { "$BIN/kubectl" --kubeconfig "$STATE/admin.conf" "$@"; }

make_networks() {
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
    echo "$BRIDGE" >>"$STATE/made-links"
  fi
  ip addr replace "$HOST_IP/${POD_CIDR#*/}" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  if ! ip link show "$SVC_BRIDGE" >/dev/null 2>&1; then
    ip link add "$SVC_BRIDGE" type bridge
    echo "$SVC_BRIDGE" >>"$STATE/made-links"
  fi
  ip link set "$SVC_BRIDGE" up
  ip route replace "$SERVICE_CIDR" dev "$SVC_BRIDGE"
}

# Writes stdin to FILE only when it changed: a running kube-proxy exits when its configuration file changes.
put() { local tmp; tmp=$(mktemp "$1.XXXX"); cat >"$tmp"; if cmp -s "$tmp" "$1"; then rm -f "$tmp"; else mv "$tmp" "$1"; fi; }

write_configs() {
  mkdir -p "$STATE"/{pki,cni/net.d,cni/data,containerd,kubelet,etcd,logs,pids,images}
  put "$STATE/containerd/config.toml" <<EOF
version = 2
root = "$STATE/containerd/root"
state = "$STATE/containerd/state"
[grpc]
  address = "$CTR_SOCK"
[ttrpc]
  address = "$STATE/containerd/containerd.sock.ttrpc"
[debug]
  address = "$STATE/containerd/debug.sock"
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # root lacks CAP_SYS_RESOURCE here: runc could not give the pause container a negative oom_score_adj.
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni/net.d"
EOF
  put "$STATE/cni/net.d/10-tcn.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "tcn",
  "plugins": [
    {
      "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": { "type": "host-local", "dataDir": "$STATE/cni/data", "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "$HOST_IP" }]],
                "routes": [{ "dst": "0.0.0.0/0" }] }
    },
    { "type": "loopback" }
  ]
}
EOF
  put "$STATE/kubeadm.yaml" <<EOF
apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: $HOST_IP
  bindPort: 6443
nodeRegistration:
  name: $NODE
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: $K8S_VERSION
certificatesDir: $STATE/pki
clusterName: toolcall-k8s
controlPlaneEndpoint: $HOST_IP:6443
networking:
  podSubnet: $POD_CIDR
  serviceSubnet: $SERVICE_CIDR
  dnsDomain: cluster.local
apiServer:
  certSANs: [$HOST_IP, 127.0.0.1]
EOF
  put "$STATE/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $HOST_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: $HOST_IP
healthzPort: 10248
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: $STATE/pki/ca.crt }
authorization: { mode: Webhook }
# This kernel runs cgroup v1: 1.34 still accepts it when told to.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /
containerRuntimeEndpoint: unix://$CTR_SOCK
clusterDomain: cluster.local
clusterDNS: []
resolvConf: /etc/resolv.conf
failSwapOn: false
enforceNodeAllocatable: []
evictionHard: { memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%" }
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
localStorageCapacityIsolation: true
EOF
  put "$STATE/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: { kubeconfig: $STATE/admin.conf }
mode: iptables
bindAddress: $HOST_IP
healthzBindAddress: $HOST_IP:10256
metricsBindAddress: $HOST_IP:10249
clusterCIDR: $POD_CIDR
# Node ports only on the node's bridge address: no route_localnet, nothing on the machine's interfaces.
nodePortAddresses: ["$HOST_IP/32"]
iptables: { localhostNodePorts: false, masqueradeAll: false }
# Leave the machine's conntrack sysctls alone.
conntrack: { maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s }
EOF
}

make_pki() {
  [[ -f $STATE/admin.conf ]] && return 0
  "$BIN/kubeadm" init phase certs all --config "$STATE/kubeadm.yaml" >>"$STATE/logs/kubeadm.log" 2>&1 \
    || die "kubeadm init phase certs failed (see $STATE/logs/kubeadm.log)"
  "$BIN/kubeadm" init phase kubeconfig all --config "$STATE/kubeadm.yaml" --kubeconfig-dir "$STATE" >>"$STATE/logs/kubeadm.log" 2>&1 \
    || die "kubeadm init phase kubeconfig failed (see $STATE/logs/kubeadm.log)"
}

# A docker-save style tarball of one layer holding static binaries at /: image_tarball OUT REF USER ENTRYPOINT FILE...
image_tarball() {
  python3 - "$@" <<'PY'
import hashlib, io, json, os, sys, tarfile
out, ref, user, entry, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
layer = io.BytesIO()
with tarfile.open(fileobj=layer, mode="w") as t:
    for path in files:
        info = t.gettarinfo(path, arcname=os.path.basename(path)); info.uid = info.gid = 0; info.uname = info.gname = ""; info.mode = 0o755
        with open(path, "rb") as f: t.addfile(info, f)
layer = layer.getvalue()
diff = "sha256:" + hashlib.sha256(layer).hexdigest()
config = json.dumps({"architecture": "amd64", "os": "linux",
    "config": {"Entrypoint": [entry], "User": user},
    "rootfs": {"type": "layers", "diff_ids": [diff]}}).encode()
cid = hashlib.sha256(config).hexdigest()
manifest = json.dumps([{"Config": cid + ".json", "RepoTags": [ref], "Layers": ["layer/layer.tar"]}]).encode()
with tarfile.open(out, "w") as t:
    for name, data in ((cid + ".json", config), ("layer/layer.tar", layer), ("manifest.json", manifest)):
        i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))
PY
}

# The pause image from the static pause binary.
pause_tarball() {
  local out="$STATE/images/pause.tar"
  [[ -f $out ]] || image_tarball "$out" "$PAUSE_IMAGE" 65535:65535 /pause "$BIN/pause"
  echo "$out"
}

import_images() {
  local ctr=(ctr --address "$CTR_SOCK" -n k8s.io)
  "${ctr[@]}" images ls -q | grep -qxF "$PAUSE_IMAGE" || "${ctr[@]}" images import "$(pause_tarball)" >>"$STATE/logs/import.log" 2>&1 \
    || die "could not import the pause image (see $STATE/logs/import.log)"
  [[ -n ${WORKER_IMAGE:-} ]] || { log "WORKER_IMAGE unset: no worker image imported (export \$(npm run -s images))"; return 0; }
  local id
  id=$(docker image inspect --format '{{.Id}}' "$WORKER_IMAGE" 2>/dev/null) || die "WORKER_IMAGE $WORKER_IMAGE is not in the Docker engine (npm run images)"
  if [[ $(cat "$STATE/images/worker.id" 2>/dev/null) != "$id $WORKER_IMAGE" ]]; then
    log "importing $WORKER_IMAGE into the cluster's containerd"
    docker save "$WORKER_IMAGE" | "${ctr[@]}" images import - >>"$STATE/logs/import.log" 2>&1 \
      || die "could not import $WORKER_IMAGE (see $STATE/logs/import.log)"
    echo "$id $WORKER_IMAGE" >"$STATE/images/worker.id"
  fi
}

up() {
  local problem started=$SECONDS
  problem=$(machine_problem)
  [[ -z $problem ]] || die "this machine cannot run the Kubernetes cluster: $problem"
  BIN=$(bash "$SCRIPT_DIR/k8s-build.sh")
  mkdir -p "$STATE"
  write_configs
  make_networks
  make_pki

  start_bg containerd containerd --config "$STATE/containerd/config.toml"
  wait_for containerd ctr --address "$CTR_SOCK" version
  local pki=$STATE/pki
  start_bg etcd "$BIN/etcd" --name "$NODE" --data-dir "$STATE/etcd" \
    --listen-client-urls "https://$HOST_IP:2379" --advertise-client-urls "https://$HOST_IP:2379" \
    --listen-peer-urls "https://$HOST_IP:2380" --initial-advertise-peer-urls "https://$HOST_IP:2380" \
    --initial-cluster "$NODE=https://$HOST_IP:2380" --listen-metrics-urls "http://$HOST_IP:2381" \
    --cert-file "$pki/etcd/server.crt" --key-file "$pki/etcd/server.key" --trusted-ca-file "$pki/etcd/ca.crt" --client-cert-auth \
    --peer-cert-file "$pki/etcd/peer.crt" --peer-key-file "$pki/etcd/peer.key" --peer-trusted-ca-file "$pki/etcd/ca.crt" --peer-client-cert-auth \
    --snapshot-count 10000 --quota-backend-bytes 2147483648
  start_bg kube-apiserver "$BIN/kube-apiserver" --advertise-address "$HOST_IP" --bind-address "$HOST_IP" --secure-port 6443 \
    --etcd-servers "https://$HOST_IP:2379" --etcd-cafile "$pki/etcd/ca.crt" \
    --etcd-certfile "$pki/apiserver-etcd-client.crt" --etcd-keyfile "$pki/apiserver-etcd-client.key" \
    --client-ca-file "$pki/ca.crt" --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --kubelet-client-certificate "$pki/apiserver-kubelet-client.crt" --kubelet-client-key "$pki/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types InternalIP \
    --service-account-issuer https://kubernetes.default.svc.cluster.local --service-account-key-file "$pki/sa.pub" \
    --service-account-signing-key-file "$pki/sa.key" --service-cluster-ip-range "$SERVICE_CIDR" \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction --allow-privileged=true \
    --proxy-client-cert-file "$pki/front-proxy-client.crt" --proxy-client-key-file "$pki/front-proxy-client.key" \
    --requestheader-client-ca-file "$pki/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
    --requestheader-extra-headers-prefix X-Remote-Extra- --requestheader-group-headers X-Remote-Group \
    --requestheader-username-headers X-Remote-User --enable-bootstrap-token-auth=false
  wait_for "kube-apiserver on $HOST_IP:6443" "$BIN/kubectl" --kubeconfig "$STATE/super-admin.conf" get --raw /readyz
  # admin.conf is the group kubeadm:cluster-admins, which only kubeadm init would bind.
  "$BIN/kubectl" --kubeconfig "$STATE/super-admin.conf" get clusterrolebinding kubeadm:cluster-admins >/dev/null 2>&1 \
    || "$BIN/kubectl" --kubeconfig "$STATE/super-admin.conf" create clusterrolebinding kubeadm:cluster-admins \
      --clusterrole cluster-admin --group kubeadm:cluster-admins >/dev/null
  start_bg kube-controller-manager "$BIN/kube-controller-manager" --bind-address "$HOST_IP" \
    --kubeconfig "$STATE/controller-manager.conf" --authentication-kubeconfig "$STATE/controller-manager.conf" \
    --authorization-kubeconfig "$STATE/controller-manager.conf" --client-ca-file "$pki/ca.crt" \
    --root-ca-file "$pki/ca.crt" --service-account-private-key-file "$pki/sa.key" --use-service-account-credentials \
    --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" \
    --requestheader-client-ca-file "$pki/front-proxy-ca.crt" --allocate-node-cidrs=false \
    --service-cluster-ip-range "$SERVICE_CIDR" --leader-elect=false
  start_bg kube-scheduler "$BIN/kube-scheduler" --bind-address "$HOST_IP" --kubeconfig "$STATE/scheduler.conf" \
    --authentication-kubeconfig "$STATE/scheduler.conf" --authorization-kubeconfig "$STATE/scheduler.conf" --leader-elect=false
  start_bg kube-proxy "$BIN/kube-proxy" --config "$STATE/kube-proxy.yaml" --hostname-override "$NODE"
  start_bg kubelet "$BIN/kubelet" --config "$STATE/kubelet/config.yaml" --kubeconfig "$STATE/kubelet.conf" \
    --root-dir "$STATE/kubelet/root" --cert-dir "$STATE/kubelet/pki" --hostname-override "$NODE" --node-ip "$HOST_IP"
  import_images
  wait_for "node $NODE Ready" kc wait --for=condition=Ready "node/$NODE" --timeout=5s
  # The first pod is refused until the controller manager has made the default service account.
  wait_for "the default service account" kc get serviceaccount default -n default
  local c
  for c in "${COMPONENTS[@]}"; do alive "$c" || die "$c exited (see $STATE/logs/$c.log)"; done
  log "cluster $K8S_VERSION up in $((SECONDS - started))s (node $NODE, $HOST_IP; state $STATE)"
  env_lines
}

# KEDA on the running cluster (scripts/keda-build.sh, cached): its three images imported, then the module's own
# kustomize config (CRDs, RBAC, operator, metrics API server, admission webhooks) applied with those images. The
# operator makes the certificates of the metrics API server and the webhooks (--enable-cert-rotation) and writes
# their CA into the APIService, so the API server's aggregation layer trusts it. Waits until that APIService is
# Available.
keda() {
  BIN=$(K8S_BUILD_CACHED_ONLY=1 bash "$SCRIPT_DIR/k8s-build.sh") || die "no Kubernetes binaries (scripts/k8s.sh up first)"
  kc get --raw /readyz >/dev/null 2>&1 || die "no cluster answers at $STATE/admin.conf (scripts/k8s.sh up first)"
  local dir version ctr=(ctr --address "$CTR_SOCK" -n k8s.io) name ref started=$SECONDS
  dir=$(bash "$SCRIPT_DIR/keda-build.sh")
  version=$(awk '{ print $2 }' "$dir/.complete"); version=${version#v}
  for name in keda keda-adapter keda-admission-webhooks; do
    ref="$KEDA_IMAGE_PREFIX/$name:$version"
    "${ctr[@]}" images ls -q | grep -qxF "$ref" && continue
    image_tarball "$STATE/images/$name.tar" "$ref" 65532:65532 "/$name" "$dir/bin/$name"
    "${ctr[@]}" images import "$STATE/images/$name.tar" >>"$STATE/logs/import.log" 2>&1 \
      || die "could not import $ref (see $STATE/logs/import.log)"
  done
  kc kustomize "$dir/config/default" \
    | sed -E -e "s#image: ghcr.io/kedacore/keda:[^[:space:]]+#image: $KEDA_IMAGE_PREFIX/keda:$version#" \
      -e "s#image: ghcr.io/kedacore/keda-metrics-apiserver:[^[:space:]]+#image: $KEDA_IMAGE_PREFIX/keda-adapter:$version#" \
      -e "s#image: ghcr.io/kedacore/keda-admission-webhooks:[^[:space:]]+#image: $KEDA_IMAGE_PREFIX/keda-admission-webhooks:$version#" \
      -e "s#imagePullPolicy: Always#imagePullPolicy: Never#" \
      -e "s#--zap-log-level=info#--zap-log-level=$KEDA_LOG_LEVEL#" >"$STATE/keda.yaml"
  ! grep -n 'image: ghcr.io' "$STATE/keda.yaml" >&2 || die "KEDA's config names an image not built here (above)"
  # Server-side: the CRDs are too large for the last-applied annotation of a client-side apply.
  kc apply --server-side --force-conflicts -f "$STATE/keda.yaml" >>"$STATE/logs/keda.log" 2>&1 \
    || die "kubectl apply of KEDA's config failed (see $STATE/logs/keda.log)"
  # The cluster runs no DNS: the metrics API server finds the operator's gRPC service by a host alias instead.
  local ip
  ip=$(kc -n keda get service keda-operator -o jsonpath='{.spec.clusterIP}')
  [[ -n $ip ]] || die "service keda/keda-operator has no cluster IP"
  kc -n keda patch deployment keda-metrics-apiserver --type merge -p "{\"spec\":{\"template\":{\"spec\":{\"hostAliases\":[{\"ip\":\"$ip\",\"hostnames\":[\"keda-operator.keda.svc.cluster.local\"]}]}}}}" \
    >>"$STATE/logs/keda.log" 2>&1 || die "could not give keda-metrics-apiserver the operator's address"
  kc -n keda rollout status deployment/keda-operator deployment/keda-metrics-apiserver deployment/keda-admission \
    --timeout="${TIMEOUT}s" >>"$STATE/logs/keda.log" 2>&1 || die "KEDA's Deployments not ready within ${TIMEOUT}s (kubectl -n keda get pods)"
  wait_for "the external metrics API (KEDA's metrics API server)" \
    kc wait --for=condition=Available apiservice/v1beta1.external.metrics.k8s.io --timeout=5s
  log "KEDA $version ready in $((SECONDS - started))s"
}

env_lines() {
  printf 'KUBECONFIG=%s\n' "$STATE/admin.conf"
  printf 'K8S_BIN=%s\n' "$BIN"
  printf 'K8S_HOST_IP=%s\n' "$HOST_IP"
  printf 'K8S_CONTAINERD_ADDRESS=%s\n' "$CTR_SOCK"
}

stop_pid() { # name, seconds before SIGKILL
  local p; p=$(pid_of "$1") || return 0
  if [[ -n $p ]] && kill -0 "$p" 2>/dev/null; then
    kill -TERM "$p" 2>/dev/null || true
    local deadline=$((SECONDS + $2))
    while kill -0 "$p" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    kill -KILL "$p" 2>/dev/null || true
  fi
  rm -f "$STATE/pids/$1"
}

# iptables rules and chains named KUBE-* or CNI-* (only those) in every table.
remove_chains() {
  local table rule chain
  for table in filter nat mangle raw; do
    iptables -t "$table" -S >/dev/null 2>&1 || continue
    # Rules in the built-in chains that jump to ours, then our chains.
    while read -r rule; do
      eval "iptables -t $table ${rule/-A /-D }" 2>/dev/null || true
    done < <(iptables -t "$table" -S | grep -E '^-A (INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING) .*-j (KUBE-|CNI-)')
    for chain in $(iptables -t "$table" -S | awk '$1 == "-N" && $2 ~ /^(KUBE-|CNI-)/ { print $2 }'); do
      iptables -t "$table" -F "$chain" 2>/dev/null || true
    done
    for chain in $(iptables -t "$table" -S | awk '$1 == "-N" && $2 ~ /^(KUBE-|CNI-)/ { print $2 }'); do
      iptables -t "$table" -X "$chain" 2>/dev/null || true
    done
  done
}

down() {
  [[ -d $STATE ]] || { log "nothing to stop ($STATE absent)"; return 0; }
  local p
  # kubelet first: its pods stay with containerd, which removes them below.
  stop_pid kubelet 15
  if [[ -S $CTR_SOCK ]] && alive containerd; then
    local ctr=(ctr --address "$CTR_SOCK" -n k8s.io) t
    for t in $("${ctr[@]}" tasks ls -q 2>/dev/null); do "${ctr[@]}" tasks kill -s SIGKILL "$t" >/dev/null 2>&1 || true; done
    local deadline=$((SECONDS + 15))
    while [[ -n $("${ctr[@]}" tasks ls -q 2>/dev/null | head -n 1) ]] && ((SECONDS < deadline)); do sleep 0.3; done
    for t in $("${ctr[@]}" tasks ls -q 2>/dev/null); do "${ctr[@]}" tasks delete -f "$t" >/dev/null 2>&1 || true; done
    # The pods' network namespaces, named in their sandboxes' specs (removed below, after containerd).
    for t in $("${ctr[@]}" containers ls -q 2>/dev/null); do
      "${ctr[@]}" containers info "$t" 2>/dev/null | grep -o '/var/run/netns/cni-[0-9a-f-]*' >>"$STATE/netns" || true
      "${ctr[@]}" containers delete "$t" >/dev/null 2>&1 || true
    done
  fi
  stop_pid kube-proxy 10
  stop_pid kube-scheduler 10
  stop_pid kube-controller-manager 10
  stop_pid kube-apiserver 20
  stop_pid etcd 10
  stop_pid containerd 15
  # containerd-shim processes of our containerd (their command line names our socket).
  for p in $(pgrep -f "containerd-shim.*-address $CTR_SOCK" || true); do kill -KILL "$p" 2>/dev/null || true; done
  local ns
  for ns in $(sort -u "$STATE/netns" 2>/dev/null); do
    umount -l "$ns" 2>/dev/null || true
    ip netns delete "${ns##*/}" 2>/dev/null || rm -f "$ns"
  done
  # Mounts under the state dir, deepest first.
  local m
  for m in $(awk -v s="$STATE" 'index($2, s) == 1 { print $2 }' /proc/mounts | sort -r); do umount -l "$m" 2>/dev/null || true; done
  remove_chains
  ip route del "$SERVICE_CIDR" dev "$SVC_BRIDGE" 2>/dev/null || true
  local link
  for link in $(cat "$STATE/made-links" 2>/dev/null) $(ip -o link show type veth 2>/dev/null | awk -F'[ @:]+' -v b="$BRIDGE" '$0 ~ "master " b { print $2 }'); do
    ip link delete "$link" 2>/dev/null || true
  done
  # kubepods cgroups (the kubelet's, cgroupfs driver).
  local c
  for c in /sys/fs/cgroup/*/kubepods; do
    [[ -d $c ]] || continue
    find "$c" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
  rm -rf "$STATE"
  log "down: stopped and removed ($STATE)"
}

status() {
  BIN=$(K8S_BUILD_CACHED_ONLY=1 bash "$SCRIPT_DIR/k8s-build.sh" 2>/dev/null) || return 1
  kc get --raw /readyz >/dev/null 2>&1 && kc wait --for=condition=Ready "node/$NODE" --timeout=2s >/dev/null 2>&1
}

case ${1:-} in
  build) printf 'K8S_BIN=%s\n' "$(bash "$SCRIPT_DIR/k8s-build.sh")" ;;
  up) up ;;
  down) down ;;
  status) status ;;
  keda) keda ;;
  check) p=$(machine_problem); [[ -z $p ]] || { echo "k8s: this machine cannot run the Kubernetes cluster: $p" >&2; exit 1; } ;;
  *) echo "usage: $0 build|up|down|status|check|keda" >&2; exit 2 ;;
esac
