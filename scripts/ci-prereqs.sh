#!/usr/bin/env bash
# Installs (idempotently) what CI needs on a fresh machine beyond Node.js, Java and Maven, which the machine
# image provides. Safe to run again and again. Today it only checks the image:
#   - java (17+) and mvn: scripts/stack.sh fetches Kafka and Apicurio Registry from Maven Central with them;
#   - a Java 21+ for Apicurio Registry 3.3.x (the image ships Temurin 25 under /usr/lib/jvm beside OpenJDK 17);
#   - curl, flock, setsid, timeout: used by scripts/stack.sh.
set -euo pipefail

fail() { printf 'ci-prereqs: ERROR: %s\n' "$*" >&2; exit 1; }
info() { printf 'ci-prereqs: %s\n' "$*" >&2; }

java_major() { "$1" -version 2>&1 | sed -n 's/^.* version "\([0-9]*\).*$/\1/p' | head -n 1; }

command -v java >/dev/null || fail "java not found (Java 17+ is needed for Kafka)"
command -v mvn >/dev/null || fail "mvn not found (needed to fetch Kafka and Apicurio Registry from Maven Central)"
java -version 2>&1 | head -n 1 >&2
mvn -v 2>/dev/null | head -n 1 | sed 's/\x1b\[[0-9;]*m//g' >&2
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

# --- Later additions go here, each idempotent (install only when missing), e.g.:
# Prometheus (promtool, for alert/recording rule tests):
#   command -v promtool >/dev/null || { apt-get update -qq && apt-get install -y -qq prometheus; }
# helm / kubeconform (chart rendering and validation), built from the Go module proxy:
#   command -v helm >/dev/null || go install helm.sh/helm/v3/cmd/helm@v3.22.0
#   command -v kubeconform >/dev/null || go install github.com/yannh/kubeconform/cmd/kubeconform@<version>

info "ok"
