#!/usr/bin/env bash
# Installs (idempotently) what CI needs on a fresh machine beyond Node.js, Java and Maven, which the machine
# image provides. Safe to run again and again. It checks the image:
#   - java (17+) and mvn: scripts/stack.sh fetches Kafka and Apicurio Registry from Maven Central with them;
#   - a Java 21+ for Apicurio Registry 3.3.x (the image ships Temurin 25 under /usr/lib/jvm beside OpenJDK 17);
#   - curl, flock, setsid, timeout: used by scripts/stack.sh;
# and installs the deploy tooling (Prometheus/promtool, helm, kubeconform, Kubernetes JSON schemas) and the
# container tooling (Debian's docker.io engine and debootstrap, Docker Compose v2 built from the Go module proxy),
# then starts the Docker engine (scripts/docker-engine.sh): see below.
set -euo pipefail

fail() { printf 'ci-prereqs: ERROR: %s\n' "$*" >&2; exit 1; }
info() { printf 'ci-prereqs: %s\n' "$*" >&2; }

java_major() { "$1" -version 2>&1 | sed -n 's/^.* version "\([0-9]*\).*$/\1/p' | head -n 1; }

command -v java >/dev/null || fail "java not found (Java 17+ is needed for Kafka)"
command -v mvn >/dev/null || fail "mvn not found (needed to fetch Kafka and Apicurio Registry from Maven Central)"
# sed -n 1p reads everything: with pipefail, head would let mvn die of SIGPIPE and end this script at random.
java -version 2>&1 | sed -n 1p >&2
mvn -v 2>/dev/null | sed -n '1{s/\x1b\[[0-9;]*m//g;p}' >&2
[[ $(java_major java) -ge 17 ]] || fail "java on PATH is older than 17"

registry_java=${REGISTRY_JAVA:-}
if [[ -z $registry_java ]]; then
  for j in ${JAVA_HOME:+$JAVA_HOME/bin/java} $(command -v java) /usr/lib/jvm/*/bin/java; do
    if [[ -x $j && $(java_major "$j") -ge 21 ]]; then registry_java=$j; break; fi
  done
fi
[[ -n $registry_java ]] || fail "no Java 21+ found for Apicurio Registry 3.3.x (JAVA_HOME, PATH, /usr/lib/jvm); set REGISTRY_JAVA"
info "Java for Apicurio Registry: $registry_java"

for tool in curl flock setsid timeout tar; do
  command -v "$tool" >/dev/null || fail "$tool not found"
done

# --- Deploy tooling, for scripts/check-deploy.sh and the tests in test/deploy and test/integration/prometheus.test.ts,
# and container tooling, for scripts/images.sh and the tests in test/image and test/compose.
# Each piece is installed only when missing (or at another version); the five run in parallel (a fresh machine
# spends most of the time building helm and Compose from the Go module proxy: about 3 and 5 minutes of CPU).
#   - Prometheus 2.42 from Debian (/usr/bin/prometheus and /usr/bin/promtool);
#   - helm and kubeconform, built with `go install` into $(go env GOPATH)/bin (check-deploy.sh looks there);
#   - the Kubernetes JSON schemas kubeconform validates against, offline: the PyPI package kubernetes-validate
#     ships them (strict, one file per kind); its wheel is fetched with pip download (not installed) and one
#     Kubernetes version is unpacked into the cache below, with its "$ref"s made relative to the files.
#     CRDs (ServiceMonitor, PodMonitor, ScaledObject, TriggerAuthentication) use trimmed schemas shipped in
#     deploy/kubeconform/; nothing is skipped and kubeconform never ignores a missing schema.
HELM_VERSION=v3.22.0
COMPOSE_VERSION=v2.40.3              # github.com/docker/compose/v2, the last v2 line (the CLI plugin `docker compose`)
KUBECONFORM_VERSION=v0.8.0
KUBERNETES_VALIDATE_VERSION=1.37.0   # PyPI; ships schemas for Kubernetes 1.25 to 1.37
K8S_SCHEMA_VERSION=1.34.0            # the Kubernetes version the chart is validated against (check-deploy.sh)
DEPLOY_CACHE=${TOOLCALL_DEPLOY_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/toolcall-normalizer-deploy}
K8S_SCHEMA_DIR="$DEPLOY_CACHE/kubernetes-json-schema/v$K8S_SCHEMA_VERSION-strict"

command -v go >/dev/null || fail "go not found (helm and kubeconform are built with go install)"
command -v python3 >/dev/null || fail "python3 not found (used to unpack the Kubernetes JSON schemas)"
GOBIN_DIR=$(go env GOBIN)
[[ -n $GOBIN_DIR ]] || GOBIN_DIR="$(go env GOPATH)/bin"

# The module version a go-installed binary was built from ("" when absent or not built by go install).
go_binary_version() { [[ -x $1 ]] && go version -m "$1" 2>/dev/null | awk -v m="$2" '$1 == "mod" && $2 == m { print $3 }'; }

# One apt-get for every Debian package (two at once would fight over dpkg's lock): Prometheus, and for the images
# the Docker engine (docker.io: dockerd, API 1.41, classic builder) and debootstrap (scripts/images.sh).
install_debian_packages() {
  local missing=()
  [[ -x /usr/bin/prometheus && -x /usr/bin/promtool ]] || missing+=(prometheus)
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  # scripts/k8s.sh: its own containerd, runc, the CNI plugins, and gcc for the static pause binary.
  command -v containerd >/dev/null || missing+=(containerd)
  command -v runc >/dev/null || missing+=(runc)
  [[ -x /usr/lib/cni/bridge ]] || missing+=(containernetworking-plugins)
  command -v gcc >/dev/null || missing+=(gcc libc6-dev)
  ((${#missing[@]} > 0)) || return 0
  [[ $(id -u) -eq 0 ]] || { echo "Debian packages missing and this is not root: apt-get install ${missing[*]}"; return 1; }
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Docker Compose v2 as the CLI plugin ~/.docker/cli-plugins/docker-compose. `go install` refuses the module (its
# go.mod has exclude directives), so it is built inside the module as the main module, as its Makefile does.
COMPOSE_PLUGIN="${DOCKER_CONFIG:-${HOME:-/root}/.docker}/cli-plugins/docker-compose"
compose_version() { [[ -x $COMPOSE_PLUGIN ]] && "$COMPOSE_PLUGIN" version --short 2>/dev/null | sed 's/^v*/v/'; }
install_compose() {
  if [[ $(compose_version) == "$COMPOSE_VERSION" ]]; then return 0; fi
  local dir
  dir=$(go mod download -json "github.com/docker/compose/v2@$COMPOSE_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])') || return 1
  mkdir -p "$(dirname "$COMPOSE_PLUGIN")"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
    -o "$COMPOSE_PLUGIN.partial" ./cmd) || return 1
  mv "$COMPOSE_PLUGIN.partial" "$COMPOSE_PLUGIN"
}

install_go_tool() { # module, cmd package, version
  local binary="$GOBIN_DIR/$(basename "$2")"
  if [[ $(go_binary_version "$binary" "$1") == "$3" ]]; then return 0; fi
  GOBIN=$GOBIN_DIR go install "$2@$3"
}

install_k8s_schemas() {
  if [[ -f $K8S_SCHEMA_DIR/.complete ]]; then return 0; fi
  local tmp; tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --only-binary=:all: --disable-pip-version-check \
    "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" -d "$tmp" || { rm -rf "$tmp"; return 1; }
  python3 - "$tmp"/kubernetes_validate-*.whl "v$K8S_SCHEMA_VERSION-local-strict" "$K8S_SCHEMA_DIR" <<'PY' || { rm -rf "$tmp"; return 1; }
import json, os, shutil, sys, zipfile
wheel, folder, out = sys.argv[1:4]
prefix = f"kubernetes_validate/kubernetes-json-schema/{folder}/"
tmp_out = out + ".partial"
shutil.rmtree(tmp_out, ignore_errors=True)
os.makedirs(tmp_out)
count = 0
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if not name.startswith(prefix) or not name.endswith(".json"):
            continue
        schema = json.loads(z.read(name))
        # The files refer to "/api/_definitions.json#/$defs/..." against an https $id: make both file-relative,
        # so kubeconform resolves them on disk and never over the network.
        if not name.endswith("/_definitions.json"):
            schema.pop("$id", None)
        text = json.dumps(schema).replace('"/api/_definitions.json#', '"_definitions.json#')
        with open(os.path.join(tmp_out, name[len(prefix):]), "w") as f:
            f.write(text)
        count += 1
if count < 100:
    sys.exit(f"only {count} schemas under {prefix} in {wheel}")
open(os.path.join(tmp_out, ".complete"), "w").write(f"{count} schemas from kubernetes-validate {folder}\n")
shutil.rmtree(out, ignore_errors=True)
os.rename(tmp_out, out)
PY
  rm -rf "$tmp"
}

logs=$(mktemp -d)
declare -A jobs=()
install_debian_packages >"$logs/debian-packages" 2>&1 & jobs[debian-packages]=$!
install_compose >"$logs/compose" 2>&1 & jobs[compose]=$!
install_go_tool helm.sh/helm/v3 helm.sh/helm/v3/cmd/helm "$HELM_VERSION" >"$logs/helm" 2>&1 & jobs[helm]=$!
install_go_tool github.com/yannh/kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION" >"$logs/kubeconform" 2>&1 & jobs[kubeconform]=$!
install_k8s_schemas >"$logs/k8s-schemas" 2>&1 & jobs[k8s-schemas]=$!
failed=()
for name in "${!jobs[@]}"; do
  if ! wait "${jobs[$name]}"; then failed+=("$name"); printf -- '--- %s install log:\n' "$name" >&2; tail -n 30 "$logs/$name" >&2; fi
done
rm -rf "$logs"
[[ ${#failed[@]} -eq 0 ]] || fail "could not install: ${failed[*]}"
info "prometheus: $(/usr/bin/prometheus --version 2>&1 | head -n 1) (/usr/bin/prometheus, /usr/bin/promtool)"
info "helm: $(go_binary_version "$GOBIN_DIR/helm" helm.sh/helm/v3) ($GOBIN_DIR/helm)"
info "kubeconform: $(go_binary_version "$GOBIN_DIR/kubeconform" github.com/yannh/kubeconform) ($GOBIN_DIR/kubeconform)"
info "Kubernetes JSON schemas: $(cat "$K8S_SCHEMA_DIR/.complete") in $K8S_SCHEMA_DIR"
info "docker compose: $(compose_version) ($COMPOSE_PLUGIN); debootstrap: $(dpkg-query -W -f '${Version}' debootstrap 2>/dev/null)"
# The engine the image, compose and testcontainers tests need; it stays up after this script.
bash "$(dirname "$0")/docker-engine.sh"
case ":$PATH:" in *":$GOBIN_DIR:"*) ;; *) info "note: $GOBIN_DIR is not on PATH; scripts/check-deploy.sh adds it itself" ;; esac

info "node: $("$(bash "$(dirname "$0")/node-lts.sh")/node" --version) (scripts/node-lts.sh, from .nvmrc)"

info "ok"
