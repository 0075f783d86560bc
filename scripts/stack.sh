#!/usr/bin/env bash
# Local integration stack without Docker: a single-node Apache Kafka (KRaft, combined broker+controller)
# and Apicurio Registry (Confluent-compatible API, H2 database in a file), both on 127.0.0.1, both from
# Maven Central.
#
#   bash scripts/stack.sh up       start both (idempotent); on success prints exactly two lines on stdout:
#                                    KAFKA_BROKERS=127.0.0.1:<port>
#                                    SCHEMA_REGISTRY_URL=http://127.0.0.1:<port>/apis/ccompat/v7
#                                  A service stopped with stop-* is started again with its data.
#   bash scripts/stack.sh down     stop both (SIGTERM, then SIGKILL), remove all state and data (idempotent)
#   bash scripts/stack.sh status   show what runs (exit 0 when both are up and answering, 1 otherwise)
#   bash scripts/stack.sh env      print the two lines above when both are up (exit 1 otherwise)
#   bash scripts/stack.sh fetch    only fetch (once, cached) Kafka's jars and the Apicurio Registry app; prints
#                                    KAFKA_VERSION=, KAFKA_HOME=<dir with lib/*.jar>, APICURIO_VERSION=,
#                                    REGISTRY_HOME=<dir with quarkus-run.jar> (scripts/images.sh builds from them)
#   bash scripts/stack.sh up-kafka start Kafka only (no registry) in this state dir; prints KAFKA_BROKERS=...
#                                  (plus the KAFKA_SECURITY lines below); `down` stops it. For tests that need a
#                                  broker of their own (own ports and STACK_STATE_DIR) beside the shared stack.
#
#   Fault injection on a running stack (idempotent, nothing on stdout, exit 0 on success):
#   bash scripts/stack.sh stop-kafka | stop-registry
#                                  stop that one service (SIGTERM, SIGKILL after STACK_STOP_TIMEOUT); its
#                                  data stays (Kafka log dirs incl. committed offsets and transaction state;
#                                  the registry's H2 database file)
#   bash scripts/stack.sh start-kafka | start-registry
#                                  start it again with the same ports and data, wait until ready (same checks
#                                  as `up`)
#
#   export $(bash scripts/stack.sh up) && npx vitest run test/integration
#
# Everything but those two lines goes to stderr. Versions are pinned below.
#
# Environment (all optional):
#   KAFKA_PORT=19092  KAFKA_CONTROLLER_PORT=19093  REGISTRY_PORT=18081  REGISTRY_MANAGEMENT_PORT=19000
#   STACK_HOST=127.0.0.1                  the address both listen on and advertise (scripts/k8s.sh: K8S_HOST_IP for pods)
#   KAFKA_NUM_PARTITIONS=3                default partitions of auto-created / admin-created topics
#   KAFKA_HEAP_OPTS="-Xms256m -Xmx512m"   REGISTRY_HEAP_OPTS="-Xms128m -Xmx512m"
#   KAFKA_JVM_OPTS / REGISTRY_JVM_OPTS    default "-XX:TieredStopAtLevel=1" (set to "" for the full C2 JIT)
#   REGISTRY_CDS=1                        0: no class-data-sharing archive for the registry (see notes)
#   STACK_CACHE_DIR=~/.cache/toolcall-normalizer-stack   downloads, unpacked jars, private Maven repo
#   STACK_STATE_DIR=<repo>/.stack         pid files, logs, Kafka log dirs, registry database (removed by `down`)
#   STACK_TIMEOUT=120                     seconds `up` / `start-*` wait for readiness
#   STACK_STOP_TIMEOUT=20                 seconds `down` / `stop-*` wait after SIGTERM before SIGKILL
#   KAFKA_JAVA / REGISTRY_JAVA            java binaries to use (default: found automatically, see below)
#   KAFKA_AUTO_CREATE_TOPICS=true         false: the broker never creates a topic on a metadata request or produce
#   KAFKA_SECURITY=                       empty (the default): PLAINTEXT only, as always. Otherwise a comma-separated
#                                         list of extra listeners, each on its own port, beside the PLAINTEXT one
#                                         (which stays for inter-broker traffic, readiness checks and the tests' own
#                                         admin clients; loopback only):
#                                           sasl-scram  SASL_PLAINTEXT, SCRAM-SHA-256 and SCRAM-SHA-512, on KAFKA_SASL_PORT
#                                           tls         SSL (server certificate only), on KAFKA_TLS_PORT
#                                           sasl-tls    SASL_SSL (SCRAM over TLS), on KAFKA_SASL_TLS_PORT
#                                           oauth       SASL_PLAINTEXT with OAUTHBEARER, on KAFKA_OAUTH_PORT: tokens are
#                                                       JWTs of a real OIDC provider (scripts/oidc-provider.ts, npm's
#                                                       oidc-provider) on KAFKA_OIDC_PORT, checked by Kafka's
#                                                       OAuthBearerValidatorCallbackHandler (JWKS, audience, issuer)
#                                         With any of them the broker runs the StandardAuthorizer; super users are
#                                         User:ANONYMOUS (the PLAINTEXT and controller listeners) and KAFKA_SUPER_USERS.
#                                         `up`/`up-kafka`/`env` then also print KAFKA_SASL_BROKERS=, KAFKA_TLS_BROKERS=,
#                                         KAFKA_SASL_TLS_BROKERS= (those enabled) and KAFKA_TLS_CA_FILE= (with TLS).
#   KAFKA_SASL_PORT / KAFKA_TLS_PORT / KAFKA_SASL_TLS_PORT   default KAFKA_PORT+2 / +3 / +4
#   KAFKA_OAUTH_PORT / KAFKA_OIDC_PORT    default KAFKA_PORT+5 / +6 (oauth: the listener, the OIDC provider)
#   KAFKA_OAUTH_TOKEN_TTL=60              oauth: access token lifetime in seconds; the broker makes clients
#                                         re-authenticate when it runs out (connections.max.reauth.ms). `up` prints
#                                         KAFKA_OAUTH_BROKERS=, KAFKA_OAUTH_TOKEN_URL=, KAFKA_OAUTH_CLIENT_ID= and
#                                         KAFKA_OAUTH_CLIENT_SECRET_FILE= (<state>/oidc/client-secret, 0600; the
#                                         client `toolcall-worker` is a super user).
#   KAFKA_SCRAM_USERS=name:password[,...] SCRAM users (both mechanisms) created by `kafka-storage format --add-scram`
#                                         when the log dir is formatted; passwords [A-Za-z0-9._-]. Default: one user
#                                         `toolcall` with a random password. Written to <state>/kafka/scram-users (0600).
#   KAFKA_SUPER_USERS=name[,...]          SCRAM users with super-user rights (default: all of KAFKA_SCRAM_USERS);
#                                         any other SCRAM user needs ACLs (create them over the PLAINTEXT listener).
#                                         TLS material is made with openssl in <state>/kafka/tls: a CA (ca.pem), a
#                                         broker certificate for 127.0.0.1/localhost (broker.pem, broker.key) and the
#                                         broker's PKCS12 keystore (broker.p12, password in keystore.password).
#                                         These settings are part of the state, like the ports.
#
# Notes / pitfalls:
# - Kafka 4.x (pinned 4.1.2) works with kafkajs 2.2.4, including idempotent/transactional producers,
#   sendOffsets and read_committed consumers: test/integration/stack.test.ts proves it, so no fallback
#   to 3.9.x is needed (the same test also passed against 4.4.0). kafkajs only speaks the classic group
#   protocol, which 4.x still serves.
# - kafka_2.13 on Maven Central carries neither a log4j2 backend nor the CLI tools
#   (org.apache.kafka.tools.*): scripts/stack/kafka-pom.xml adds log4j-core, log4j-slf4j-impl and kafka-tools.
# - Apicurio Registry 3.3.x is compiled for Java 21 (class file 65) and fails on Java 17 with
#   UnsupportedClassVersionError. The registry therefore runs on a Java >= 21 found in REGISTRY_JAVA,
#   JAVA_HOME, PATH or /usr/lib/jvm/* (this machine kind ships Temurin 25 beside OpenJDK 17); Kafka runs on 17+.
# - Replication factor 1 for __consumer_offsets and __transaction_state (and min ISR 1) is required on a
#   single node, otherwise consumer groups and transactions hang.
# - Startup speed (measured on a loaded 2-CPU box): the JVMs run with the C1 JIT only
#   (-XX:TieredStopAtLevel=1), which roughly halves Kafka's and the registry's startup, plenty for a test
#   stack. The registry (Java >= 21) also uses a dynamic CDS archive in the cache dir
#   (<cache>/cds/apicurio-registry-<v>-java<major>.jsa, -XX:+AutoCreateSharedArchive): the JVM writes it
#   when a registry without a usable archive exits (once, adds a few seconds to that stop) and every later
#   start maps it, 12-18 s -> 3-4 s together with C1. A stale archive is rewritten by the JVM at the next exit,
#   one without a valid header (an interrupted dump) is removed by start_registry first.
# - State lives until `down`: Kafka formats its log dir only when it holds no meta.properties yet, and the
#   registry keeps its data in H2 file mode (<state>/registry/db/registry.mv.db) instead of Apicurio's default
#   in-memory H2 (apicurio.datasource.url=jdbc:h2:mem:...). So `stop-*` / `start-*`, and `up` after a crash,
#   keep topics, committed offsets, transactions and registered schemas (with their ids).
#   Ports are part of that state: while state is kept, `up` insists on the ports it was created with.
set -euo pipefail

KAFKA_VERSION=4.1.2       # org.apache.kafka:kafka_2.13 (see scripts/stack/kafka-pom.xml)
APICURIO_VERSION=3.3.3    # io.apicurio:apicurio-registry-app:<v>:tar.gz:all
DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.8.1

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/.." && pwd)
STACK_FILES="$SCRIPT_DIR/stack"

# Address Kafka and the registry listen on and advertise: loopback, or an address of a network made for pods
# (scripts/k8s.sh: K8S_HOST_IP) so a cluster's pods reach them.
STACK_HOST=${STACK_HOST:-127.0.0.1}
KAFKA_PORT=${KAFKA_PORT:-19092}
KAFKA_CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-19093}
REGISTRY_PORT=${REGISTRY_PORT:-18081}
REGISTRY_MANAGEMENT_PORT=${REGISTRY_MANAGEMENT_PORT:-19000}
KAFKA_NUM_PARTITIONS=${KAFKA_NUM_PARTITIONS:-3}
KAFKA_AUTO_CREATE_TOPICS=${KAFKA_AUTO_CREATE_TOPICS:-true}
KAFKA_SECURITY=${KAFKA_SECURITY:-}
KAFKA_SCRAM_USERS=${KAFKA_SCRAM_USERS:-}
KAFKA_SUPER_USERS=${KAFKA_SUPER_USERS:-}
KAFKA_HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}
REGISTRY_HEAP_OPTS=${REGISTRY_HEAP_OPTS:--Xms128m -Xmx512m}
KAFKA_JVM_OPTS=${KAFKA_JVM_OPTS--XX:TieredStopAtLevel=1}
REGISTRY_JVM_OPTS=${REGISTRY_JVM_OPTS--XX:TieredStopAtLevel=1}
REGISTRY_CDS=${REGISTRY_CDS:-1}
# Short-lived Kafka tool JVMs (format, readiness check): start fast, no GC threads to speak of.
TOOL_JVM_OPTS=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
STACK_TIMEOUT=${STACK_TIMEOUT:-120}
STACK_STOP_TIMEOUT=${STACK_STOP_TIMEOUT:-20}

CACHE_DIR=${STACK_CACHE_DIR:-${HOME:-/tmp}/.cache/toolcall-normalizer-stack}
STATE_DIR=${STACK_STATE_DIR:-$REPO_DIR/.stack}

KAFKA_HOME="$CACHE_DIR/kafka_2.13-$KAFKA_VERSION"        # lib/*.jar
REGISTRY_HOME="$CACHE_DIR/apicurio-registry-$APICURIO_VERSION"  # unpacked tar.gz
MAVEN_REPO="$CACHE_DIR/m2"
KAFKA_STATE="$STATE_DIR/kafka"
REGISTRY_STATE="$STATE_DIR/registry"
KAFKA_LOG="$KAFKA_STATE/logs/server.log"
REGISTRY_LOG="$REGISTRY_STATE/registry.log"
ENV_FILE="$STATE_DIR/stack.env"
REGISTRY_DB="$REGISTRY_STATE/db/registry"  # H2 file mode: the data is $REGISTRY_DB.mv.db
# DB_CLOSE_ON_EXIT=FALSE: H2's own shutdown hook must not close the database under Quarkus, which closes its
# pool (and with the last connection the database) on SIGTERM itself.
REGISTRY_H2_OPTIONS="DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0"

log() { printf 'stack: %s\n' "$*" >&2; }
die() { printf 'stack: ERROR: %s\n' "$*" >&2; exit 1; }

for n in KAFKA_PORT KAFKA_CONTROLLER_PORT REGISTRY_PORT REGISTRY_MANAGEMENT_PORT KAFKA_NUM_PARTITIONS \
  STACK_TIMEOUT STACK_STOP_TIMEOUT; do
  [[ ${!n} =~ ^[1-9][0-9]*$ ]] || die "$n must be a positive integer (got '${!n}')"
done
[[ $REGISTRY_CDS == [01] ]] || die "REGISTRY_CDS must be 0 or 1 (got '$REGISTRY_CDS')"
[[ $KAFKA_AUTO_CREATE_TOPICS == true || $KAFKA_AUTO_CREATE_TOPICS == false ]] ||
  die "KAFKA_AUTO_CREATE_TOPICS must be true or false (got '$KAFKA_AUTO_CREATE_TOPICS')"
KAFKA_SASL_PORT=${KAFKA_SASL_PORT:-$((KAFKA_PORT + 2))}
KAFKA_TLS_PORT=${KAFKA_TLS_PORT:-$((KAFKA_PORT + 3))}
KAFKA_SASL_TLS_PORT=${KAFKA_SASL_TLS_PORT:-$((KAFKA_PORT + 4))}
KAFKA_OAUTH_PORT=${KAFKA_OAUTH_PORT:-$((KAFKA_PORT + 5))}
KAFKA_OIDC_PORT=${KAFKA_OIDC_PORT:-$((KAFKA_PORT + 6))}
KAFKA_OAUTH_TOKEN_TTL=${KAFKA_OAUTH_TOKEN_TTL:-60}
OAUTH_CLIENT_ID=toolcall-worker
OAUTH_AUDIENCE=urn:toolcall:kafka

check_security_settings() { # validates KAFKA_SECURITY and the SCRAM settings (also after loading recorded ones)
  local item n
  for n in KAFKA_SASL_PORT KAFKA_TLS_PORT KAFKA_SASL_TLS_PORT KAFKA_OAUTH_PORT KAFKA_OIDC_PORT KAFKA_OAUTH_TOKEN_TTL; do
    [[ ${!n} =~ ^[1-9][0-9]*$ ]] || die "$n must be a positive integer (got '${!n}')"
  done
  [[ -z $KAFKA_SECURITY ]] && return 0
  IFS=, read -r -a items <<<"$KAFKA_SECURITY"
  for item in "${items[@]}"; do
    [[ $item == sasl-scram || $item == tls || $item == sasl-tls || $item == oauth ]] ||
      die "KAFKA_SECURITY: '$item' is not one of sasl-scram, tls, sasl-tls, oauth (comma-separated)"
  done
  [[ -z $KAFKA_SCRAM_USERS || $KAFKA_SCRAM_USERS =~ ^[A-Za-z0-9._-]+:[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+:[A-Za-z0-9._-]+)*$ ]] ||
    die "KAFKA_SCRAM_USERS must be name:password[,name:password...] with names and passwords of [A-Za-z0-9._-]"
  [[ -z $KAFKA_SUPER_USERS || $KAFKA_SUPER_USERS =~ ^[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+)*$ ]] ||
    die "KAFKA_SUPER_USERS must be name[,name...] with names of [A-Za-z0-9._-]"
}
check_security_settings
security_has() { [[ ",$KAFKA_SECURITY," == *",$1,"* ]]; }

# ---------------------------------------------------------------------------------------------- helpers

# Serialises up/down across clones: ports are machine-wide anyway.
take_lock() {
  mkdir -p "$CACHE_DIR"
  exec 9>"$CACHE_DIR/stack.lock"
  flock -w 600 9 || die "another 'stack.sh up/down' has held $CACHE_DIR/stack.lock for 600s"
}

java_major() { # java_major JAVA -> major version (17, 21, ...) or nothing
  local v
  v=$("$1" -version 2>&1 | sed -n 's/^.* version "\([^"]*\)".*$/\1/p') || true
  v=${v%%$'\n'*}
  case $v in
    '') ;;
    1.*) v=${v#1.}; printf '%s\n' "${v%%.*}" ;;
    *) printf '%s\n' "${v%%[.+-]*}" ;;
  esac
}

find_java() { # find_java MIN_MAJOR OVERRIDE -> path of a java >= MIN_MAJOR
  local min=$1 override=$2 j m
  if [[ -n $override ]]; then
    m=$(java_major "$override")
    [[ -n $m && $m -ge $min ]] || return 1
    printf '%s\n' "$override"; return
  fi
  local candidates=()
  [[ -n ${JAVA_HOME:-} ]] && candidates+=("$JAVA_HOME/bin/java")
  j=$(command -v java || true); [[ -n $j ]] && candidates+=("$j")
  while IFS= read -r j; do [[ -z $j ]] || candidates+=("$j"); done < <(printf '%s\n' /usr/lib/jvm/*/bin/java | sort -rV)
  for j in "${candidates[@]}"; do
    [[ -x $j ]] || continue
    m=$(java_major "$j")
    if [[ -n $m && $m -ge $min ]]; then printf '%s\n' "$j"; return; fi
  done
  return 1
}

pid_of() { # pid_of kafka|registry -> pid if that component runs (pid file + our marker on its command line)
  local f="$STATE_DIR/$1/$1.pid" pid args
  [[ -f $f ]] || return 1
  pid=$(<"$f")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  args=$(ps -ww -o args= -p "$pid" 2>/dev/null) || return 1
  [[ $args == *"-Dtoolcall.stack.component=$1 "* ]] || return 1
  printf '%s\n' "$pid"
}

stray_pids() { # processes of this state dir whose pid file is gone (e.g. .stack removed by hand)
  # shellcheck disable=SC2009 # fixed-string match on our own marker; pgrep -f would take the path as a regex
  ps -ww -eo pid=,args= | grep -F -- "-Dtoolcall.stack.dir=$STATE_DIR " | grep -v -F 'grep' | awk '{print $1}' || true
}

port_busy() { timeout 2 bash -c "exec 3<>/dev/tcp/$STACK_HOST/$1" 2>/dev/null; }

# Kafka ApiVersions v0 request over /dev/tcp: correlation id 1, client id "stack". True when the broker
# answers with correlation id 1 and error code 0.
kafka_answers() {
  local hex
  hex=$(timeout 3 bash -c "exec 3<>/dev/tcp/$STACK_HOST/$1 &&
    printf '\x00\x00\x00\x0f\x00\x12\x00\x00\x00\x00\x00\x01\x00\x05stack' >&3 && head -c 10 <&3" 2>/dev/null |
    od -An -tx1 | tr -d ' \n') || return 1
  [[ ${hex:8:12} == 000000010000 ]]
}

registry_answers() { # /health/ready on the management port AND the ccompat API answers 200
  curl -fsS -m 3 -o /dev/null "http://$STACK_HOST:$2/health/ready" 2>/dev/null || return 1
  [[ $(curl -sS -m 3 -o /dev/null -w '%{http_code}' "http://$STACK_HOST:$1/apis/ccompat/v7/subjects" 2>/dev/null) == 200 ]]
}

env_lines() {
  printf 'KAFKA_BROKERS=%s:%s\n' "$STACK_HOST" "$1"
  printf 'SCHEMA_REGISTRY_URL=http://%s:%s/apis/ccompat/v7\n' "$STACK_HOST" "$2"
}

security_lines() { # the secured listeners of KAFKA_SECURITY (nothing when it is empty)
  if security_has sasl-scram; then printf 'KAFKA_SASL_BROKERS=%s:%s\n' "$STACK_HOST" "$KAFKA_SASL_PORT"; fi
  if security_has tls; then printf 'KAFKA_TLS_BROKERS=%s:%s\n' "$STACK_HOST" "$KAFKA_TLS_PORT"; fi
  if security_has sasl-tls; then printf 'KAFKA_SASL_TLS_BROKERS=%s:%s\n' "$STACK_HOST" "$KAFKA_SASL_TLS_PORT"; fi
  if security_has tls || security_has sasl-tls; then printf 'KAFKA_TLS_CA_FILE=%s\n' "$KAFKA_STATE/tls/ca.pem"; fi
  if security_has oauth; then
    printf 'KAFKA_OAUTH_BROKERS=127.0.0.1:%s\nKAFKA_OAUTH_TOKEN_URL=http://127.0.0.1:%s/token\n' "$KAFKA_OAUTH_PORT" "$KAFKA_OIDC_PORT"
    printf 'KAFKA_OAUTH_CLIENT_ID=%s\nKAFKA_OAUTH_CLIENT_SECRET_FILE=%s\n' "$OAUTH_CLIENT_ID" "$STATE_DIR/oidc/client-secret"
  fi
}

# The security settings a stack was created with (recorded only when they differ from the defaults).
record_security() {
  [[ -z $KAFKA_SECURITY ]] || printf 'kafka_security=%s\nkafka_sasl_port=%s\nkafka_tls_port=%s\nkafka_sasl_tls_port=%s\nkafka_super_users=%s\n' \
    "$KAFKA_SECURITY" "$KAFKA_SASL_PORT" "$KAFKA_TLS_PORT" "$KAFKA_SASL_TLS_PORT" "$KAFKA_SUPER_USERS"
  [[ -z $KAFKA_SECURITY ]] || printf 'kafka_oauth_port=%s\nkafka_oidc_port=%s\nkafka_oauth_token_ttl=%s\n' \
    "$KAFKA_OAUTH_PORT" "$KAFKA_OIDC_PORT" "$KAFKA_OAUTH_TOKEN_TTL"
  [[ $KAFKA_AUTO_CREATE_TOPICS == true ]] || printf 'kafka_auto_create_topics=%s\n' "$KAFKA_AUTO_CREATE_TOPICS"
}

# Ports a running stack was started with (so `env`/`status`/`up` agree with it whatever this shell sets).
load_recorded_ports() {
  REC_KAFKA_PORT=$KAFKA_PORT REC_KAFKA_CONTROLLER_PORT=$KAFKA_CONTROLLER_PORT
  REC_REGISTRY_PORT=$REGISTRY_PORT REC_REGISTRY_MANAGEMENT_PORT=$REGISTRY_MANAGEMENT_PORT
  REC_KAFKA_SECURITY=$KAFKA_SECURITY REC_KAFKA_AUTO_CREATE_TOPICS=$KAFKA_AUTO_CREATE_TOPICS
  [[ -f $ENV_FILE ]] || return 0
  REC_KAFKA_SECURITY='' REC_KAFKA_AUTO_CREATE_TOPICS=true
  local k v
  while IFS='=' read -r k v; do
    case $k in
      kafka_port) REC_KAFKA_PORT=$v ;;
      kafka_controller_port) REC_KAFKA_CONTROLLER_PORT=$v ;;
      registry_port) REC_REGISTRY_PORT=$v ;;
      registry_management_port) REC_REGISTRY_MANAGEMENT_PORT=$v ;;
      kafka_security) REC_KAFKA_SECURITY=$v ;;
      kafka_auto_create_topics) REC_KAFKA_AUTO_CREATE_TOPICS=$v ;;
      kafka_sasl_port) REC_KAFKA_SASL_PORT=$v ;;
      kafka_tls_port) REC_KAFKA_TLS_PORT=$v ;;
      kafka_sasl_tls_port) REC_KAFKA_SASL_TLS_PORT=$v ;;
      kafka_super_users) REC_KAFKA_SUPER_USERS=$v ;;
      kafka_oauth_port) REC_KAFKA_OAUTH_PORT=$v ;;
      kafka_oidc_port) REC_KAFKA_OIDC_PORT=$v ;;
      kafka_oauth_token_ttl) REC_KAFKA_OAUTH_TOKEN_TTL=$v ;;
    esac
  done <"$ENV_FILE"
}

adopt_recorded_security() { # after load_recorded_ports: the stack's own security settings, whatever this shell sets
  KAFKA_SECURITY=$REC_KAFKA_SECURITY KAFKA_AUTO_CREATE_TOPICS=$REC_KAFKA_AUTO_CREATE_TOPICS
  if [[ -n $KAFKA_SECURITY ]]; then
    KAFKA_SASL_PORT=${REC_KAFKA_SASL_PORT:-$KAFKA_SASL_PORT} KAFKA_TLS_PORT=${REC_KAFKA_TLS_PORT:-$KAFKA_TLS_PORT}
    KAFKA_SASL_TLS_PORT=${REC_KAFKA_SASL_TLS_PORT:-$KAFKA_SASL_TLS_PORT} KAFKA_SUPER_USERS=${REC_KAFKA_SUPER_USERS:-}
    KAFKA_OAUTH_PORT=${REC_KAFKA_OAUTH_PORT:-$KAFKA_OAUTH_PORT} KAFKA_OIDC_PORT=${REC_KAFKA_OIDC_PORT:-$KAFKA_OIDC_PORT}
    KAFKA_OAUTH_TOKEN_TTL=${REC_KAFKA_OAUTH_TOKEN_TTL:-$KAFKA_OAUTH_TOKEN_TTL}
  fi
  check_security_settings
}

show_log_tail() { # show_log_tail FILE
  if [[ -s $1 ]]; then
    log "last lines of $1:"
    tail -n 25 "$1" | sed 's/^/    /' >&2
  fi
}

# launch PIDFILE WORKDIR LOGFILE CMD... : detached (own session, immune to SIGHUP), pid written by the process itself
launch() {
  local pidfile=$1 dir=$2 logfile=$3 i
  shift 3
  rm -f "$pidfile"
  local detach=(nohup)
  command -v setsid >/dev/null && detach=(setsid nohup)
  # Appends: after stop-*/start-* the log of the previous run stays above the marker line.
  printf '===== %s: started by scripts/stack.sh\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$logfile"
  # shellcheck disable=SC2016 # $$, $1.. belong to the inner bash
  "${detach[@]}" bash -c 'echo $$ >"$1" && cd "$2" && shift 2 && exec "$@"' launch "$pidfile" "$dir" "$@" \
    >>"$logfile" 2>&1 </dev/null 9>&- &  # 9>&-: the daemon must not inherit (and keep) the up/down lock
  for ((i = 0; i < 50; i++)); do [[ -s $pidfile ]] && return 0; sleep 0.1; done
  die "could not start $(basename "$pidfile" .pid) (see $logfile)"
}

# --------------------------------------------------------------------------------------------- downloads

mvn_q() { # quiet Maven on stderr (Maven 3.8 prints colour resets even with -B, hence the sed)
  mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$MAVEN_REPO" -f "$STACK_FILES/kafka-pom.xml" "$@" 2>&1 |
    sed 's/\x1b\[[0-9;]*m//g' >&2
}

ensure_kafka_jars() {
  [[ -f $KAFKA_HOME/.complete ]] && return 0
  command -v mvn >/dev/null || die "mvn not found (needed once to fetch Kafka from Maven Central)"
  log "fetching Kafka $KAFKA_VERSION jars from Maven Central into $KAFKA_HOME (once)"
  local tmp
  tmp=$(mktemp -d "$CACHE_DIR/.kafka-XXXXXX")
  if ! mvn_q -Dkafka.version="$KAFKA_VERSION" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$tmp/lib"; then
    rm -rf "$tmp"; die "fetching Kafka $KAFKA_VERSION failed"
  fi
  touch "$tmp/.complete"
  rm -rf "$KAFKA_HOME"
  mv "$tmp" "$KAFKA_HOME"
}

ensure_registry_app() {
  [[ -f $REGISTRY_HOME/.complete ]] && return 0
  command -v mvn >/dev/null || die "mvn not found (needed once to fetch Apicurio Registry from Maven Central)"
  log "fetching Apicurio Registry $APICURIO_VERSION from Maven Central into $REGISTRY_HOME (once)"
  local tmp
  tmp=$(mktemp -d "$CACHE_DIR/.apicurio-XXXXXX")
  if ! mvn_q "$DEPENDENCY_PLUGIN:copy" \
    -Dartifact="io.apicurio:apicurio-registry-app:$APICURIO_VERSION:tar.gz:all" -DoutputDirectory="$tmp/dl"; then
    rm -rf "$tmp"; die "fetching Apicurio Registry $APICURIO_VERSION failed"
  fi
  mkdir -p "$tmp/app"
  tar -xzf "$tmp"/dl/*.tar.gz -C "$tmp/app"
  rm -rf "$tmp/dl"
  # 3.3.x has the Quarkus fast-jar at the archive root; 3.1.5-3.2.x had it under quarkus-app/.
  [[ -f $tmp/app/quarkus-run.jar || -f $tmp/app/quarkus-app/quarkus-run.jar ]] ||
    { rm -rf "$tmp"; die "no quarkus-run.jar in apicurio-registry-app-$APICURIO_VERSION-all.tar.gz"; }
  touch "$tmp/app/.complete"
  rm -rf "$REGISTRY_HOME"
  mv "$tmp/app" "$REGISTRY_HOME"
  rm -rf "$tmp"
}

# ----------------------------------------------------------------------------------------------- kafka

kafka_cluster_id() { # 16 random bytes, base64url without padding, like `kafka-storage random-uuid`
  local id
  while :; do
    id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
    [[ $id == -* ]] || { printf '%s\n' "$id"; return; }
  done
}

# ------------------------------------------------------------------------------- kafka security (optional)

random_secret() { od -An -tx1 -N16 /dev/urandom | tr -d ' \n'; }

ensure_scram_users() { # <state>/kafka/scram-users: KAFKA_SCRAM_USERS, or one user with a random password (kept)
  local f="$KAFKA_STATE/scram-users"
  if [[ ! -f $f ]]; then
    (umask 077 && printf '%s\n' "${KAFKA_SCRAM_USERS:-toolcall:$(random_secret)}" | tr ',' '\n' >"$f")
  fi
}

ensure_tls_material() { # a CA, a broker certificate for 127.0.0.1/localhost, its PKCS12 keystore (kept)
  local d="$KAFKA_STATE/tls"
  [[ -f $d/broker.p12 && -f $d/keystore.password && -f $d/ca.pem ]] && return 0
  command -v openssl >/dev/null || die "openssl not found (needed for KAFKA_SECURITY=tls/sasl-tls)"
  rm -rf "$d" && mkdir -p "$d" && chmod 700 "$d"
  log "making TLS material with openssl in $d (CA, broker certificate for 127.0.0.1/localhost, PKCS12 keystore)"
  (
    set -e
    cd "$d"
    umask 077
    random_secret >keystore.password
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 30 -subj '/CN=toolcall-normalizer stack CA' \
      -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign'
    openssl req -newkey rsa:2048 -nodes -keyout broker.key -out broker.csr -subj '/CN=127.0.0.1'
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' >broker.ext
    openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out broker.pem -days 30 -extfile broker.ext
    openssl pkcs12 -export -in broker.pem -inkey broker.key -certfile ca.pem -name broker -out broker.p12 -passout file:keystore.password
    chmod 644 ca.pem broker.pem
  ) >"$KAFKA_STATE/logs/tls.log" 2>&1 || { show_log_tail "$KAFKA_STATE/logs/tls.log"; die "making the TLS material failed (see $KAFKA_STATE/logs/tls.log)"; }
}

security_properties() { # server.properties lines for KAFKA_SECURITY (appended to the default ones)
  local users super='User:ANONYMOUS' u l
  users=$(cut -d: -f1 "$KAFKA_STATE/scram-users" | paste -sd, -)
  IFS=, read -r -a names <<<"${KAFKA_SUPER_USERS:-$users}"
  for u in "${names[@]}"; do super+=";User:$u"; done
  if security_has oauth; then super+=";User:$OAUTH_CLIENT_ID"; fi
  printf '# KAFKA_SECURITY=%s: the listeners above beside PLAINTEXT, which stays for inter-broker traffic and tools.\n' "$KAFKA_SECURITY"
  printf 'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer\n'
  printf 'allow.everyone.if.no.acl.found=false\n'
  printf 'super.users=%s\n' "$super"
  if security_has sasl-scram || security_has sasl-tls; then
    printf 'sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512\n'
    for l in sasl_plaintext sasl_ssl; do
      printf 'listener.name.%s.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;\n' "$l"
      printf 'listener.name.%s.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;\n' "$l"
    done
  fi
  if security_has oauth; then
    local jwks="http://127.0.0.1:$KAFKA_OIDC_PORT/jwks" o=listener.name.oauth.oauthbearer
    printf 'listener.name.oauth.sasl.enabled.mechanisms=OAUTHBEARER\n'
    printf '%s.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;\n' "$o"
    printf '%s.sasl.server.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler\n' "$o"
    printf '%s.connections.max.reauth.ms=3600000\n' "$o"
    printf 'sasl.oauthbearer.jwks.endpoint.url=%s\nsasl.oauthbearer.expected.audience=%s\n' "$jwks" "$OAUTH_AUDIENCE"
    printf 'sasl.oauthbearer.expected.issuer=http://127.0.0.1:%s\n' "$KAFKA_OIDC_PORT"
  fi
  if security_has tls || security_has sasl-tls; then
    printf 'ssl.keystore.type=PKCS12\nssl.keystore.location=%s\n' "$KAFKA_STATE/tls/broker.p12"
    printf 'ssl.keystore.password=%s\nssl.key.password=%s\n' "$(<"$KAFKA_STATE/tls/keystore.password")" "$(<"$KAFKA_STATE/tls/keystore.password")"
    printf 'ssl.client.auth=none\n'
  fi
}

# ------------------------------------------------------------------------------------ OIDC provider (oauth)

start_oidc() { # the OIDC provider of KAFKA_SECURITY=oauth, before Kafka (its validator reads the JWKS at start)
  local d="$STATE_DIR/oidc" node i
  mkdir -p "$d"
  if pid_of oidc >/dev/null; then return 0; fi
  [[ -s $d/client-secret ]] || (umask 077 && random_secret >"$d/client-secret")
  [[ -d $REPO_DIR/node_modules/oidc-provider ]] || die "KAFKA_SECURITY=oauth needs the npm package oidc-provider (npm ci)"
  node=$(bash "$SCRIPT_DIR/node-lts.sh")/node
  ! port_busy "$KAFKA_OIDC_PORT" || die "port $KAFKA_OIDC_PORT is in use by another process; set KAFKA_OIDC_PORT"
  log "starting the OIDC provider on 127.0.0.1:$KAFKA_OIDC_PORT (token TTL ${KAFKA_OAUTH_TOKEN_TTL}s)"
  # The trailing marker arguments let pid_of/stray_pids find it like the JVMs (the script ignores them).
  launch "$d/oidc.pid" "$REPO_DIR" "$d/oidc.log" "$node" "$SCRIPT_DIR/oidc-provider.ts" "$KAFKA_OIDC_PORT" "$OAUTH_CLIENT_ID" \
    "$d/client-secret" "$OAUTH_AUDIENCE" "$KAFKA_OAUTH_TOKEN_TTL" -Dtoolcall.stack.component=oidc -Dtoolcall.stack.dir="$STATE_DIR" end
  STARTED+=(oidc)
  for ((i = 0; i < 100; i++)); do
    grep -q '^ready ' "$d/oidc.log" 2>/dev/null && return 0
    pid_of oidc >/dev/null || { show_log_tail "$d/oidc.log"; die "the OIDC provider exited during startup (see $d/oidc.log)"; }
    sleep 0.2
  done
  show_log_tail "$d/oidc.log"
  die "the OIDC provider did not start within 20 s (see $d/oidc.log)"
}

# ----------------------------------------------------------------------------------------------- kafka

start_kafka() { # uses KAFKA_PORT / KAFKA_CONTROLLER_PORT; keeps an already formatted log dir
  local java=$1
  mkdir -p "$KAFKA_STATE/data" "$KAFKA_STATE/logs"
  local extra_listeners='' extra_map='' format_extra=()
  if [[ -n $KAFKA_SECURITY ]]; then
    ensure_scram_users
    if security_has sasl-scram; then extra_listeners+=",SASL_PLAINTEXT://$STACK_HOST:$KAFKA_SASL_PORT" extra_map+=",SASL_PLAINTEXT:SASL_PLAINTEXT"; fi
    if security_has tls; then extra_listeners+=",SSL://$STACK_HOST:$KAFKA_TLS_PORT" extra_map+=",SSL:SSL"; fi
    if security_has sasl-tls; then extra_listeners+=",SASL_SSL://$STACK_HOST:$KAFKA_SASL_TLS_PORT" extra_map+=",SASL_SSL:SASL_SSL"; fi
    if security_has tls || security_has sasl-tls; then ensure_tls_material; fi
    if security_has oauth; then extra_listeners+=",OAUTH://127.0.0.1:$KAFKA_OAUTH_PORT" extra_map+=",OAUTH:SASL_PLAINTEXT"; start_oidc; fi
    local name password
    while IFS=: read -r name password; do
      [[ -n $name ]] || continue
      format_extra+=(--add-scram "SCRAM-SHA-256=[name=$name,password=$password]" --add-scram "SCRAM-SHA-512=[name=$name,password=$password]")
    done <"$KAFKA_STATE/scram-users"
  fi
  cat >"$KAFKA_STATE/server.properties" <<EOF
# Written by scripts/stack.sh: single-node KRaft, combined broker+controller, loopback only.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$STACK_HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$STACK_HOST:$KAFKA_PORT,CONTROLLER://$STACK_HOST:$KAFKA_CONTROLLER_PORT$extra_listeners
advertised.listeners=PLAINTEXT://$STACK_HOST:$KAFKA_PORT$extra_listeners
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT$extra_map
log.dirs=$KAFKA_STATE/data
num.partitions=$KAFKA_NUM_PARTITIONS
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=$KAFKA_AUTO_CREATE_TOPICS
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=10
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# The consumer protocol's (KIP-848) lower bounds, so a test or the fault campaign can give its group a short
# session (group configs consumer.session.timeout.ms and consumer.heartbeat.interval.ms); the defaults stay 45 s, 5 s.
group.consumer.min.session.timeout.ms=6000
group.consumer.min.heartbeat.interval.ms=1000
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
EOF
  [[ -z $KAFKA_SECURITY ]] || security_properties >>"$KAFKA_STATE/server.properties"
  local how="with its kept log dir"
  if [[ ! -f $KAFKA_STATE/data/meta.properties ]]; then
    how="with a freshly formatted log dir"
    rm -rf "$KAFKA_STATE/data" && mkdir -p "$KAFKA_STATE/data"  # whatever a failed format left behind
    local common=("${TOOL_JVM_OPTS[@]}" -Dlog4j2.configurationFile="$STACK_FILES/tools-log4j2.xml" -cp "$KAFKA_HOME/lib/*")
    if ! "$java" "${common[@]}" kafka.tools.StorageTool format -t "$(kafka_cluster_id)" \
      -c "$KAFKA_STATE/server.properties" "${format_extra[@]}" >"$KAFKA_STATE/logs/format.log" 2>&1; then
      show_log_tail "$KAFKA_STATE/logs/format.log"
      die "formatting the Kafka log dir failed (see $KAFKA_STATE/logs/format.log)"
    fi
  fi
  local heap jvm oauth_jvm=()
  # Kafka 4 fetches only the JWKS URLs this property allows.
  if security_has oauth; then oauth_jvm=(-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls="http://127.0.0.1:$KAFKA_OIDC_PORT/jwks"); fi
  read -r -a heap <<<"$KAFKA_HEAP_OPTS"
  read -r -a jvm <<<"$KAFKA_JVM_OPTS"
  log "starting Kafka $KAFKA_VERSION (KRaft) on $STACK_HOST:$KAFKA_PORT, controller :$KAFKA_CONTROLLER_PORT, $how (log: $KAFKA_LOG)"
  launch "$KAFKA_STATE/kafka.pid" "$KAFKA_STATE" "$KAFKA_STATE/logs/stdout.log" \
    "$java" "${heap[@]}" "${jvm[@]}" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dtoolcall.stack.component=kafka -Dtoolcall.stack.dir="$STATE_DIR" "${oauth_jvm[@]}" \
    -Dlog4j2.configurationFile="$STACK_FILES/kafka-log4j2.xml" -Dkafka.logs.dir="$KAFKA_STATE/logs" \
    -cp "$KAFKA_HOME/lib/*" kafka.Kafka "$KAFKA_STATE/server.properties"
}

wait_kafka() { # wait_kafka JAVA PORT DEADLINE DEEP_CHECK(0|1)
  local java=$1 port=$2 deadline=$3 deep=$4
  while :; do
    pid_of kafka >/dev/null || {
      show_log_tail "$KAFKA_LOG"; show_log_tail "$KAFKA_STATE/logs/stdout.log"
      die "Kafka exited during startup; see $KAFKA_LOG and $KAFKA_STATE/logs/stdout.log"
    }
    if kafka_answers "$port"; then
      # Reached only once the broker serves requests; in KRaft that is after it caught up with metadata.
      [[ $deep == 1 ]] || return 0
      if timeout 60 "$java" "${TOOL_JVM_OPTS[@]}" -Dlog4j2.configurationFile="$STACK_FILES/tools-log4j2.xml" -cp "$KAFKA_HOME/lib/*" \
        org.apache.kafka.tools.BrokerApiVersionsCommand --bootstrap-server "$STACK_HOST:$port" \
        >"$KAFKA_STATE/logs/api-versions.log" 2>&1 && grep -q 'isFenced: false' "$KAFKA_STATE/logs/api-versions.log"; then
        return 0
      fi
    fi
    ((SECONDS < deadline)) || {
      show_log_tail "$KAFKA_LOG"
      die "Kafka did not become ready on $STACK_HOST:$port within ${STACK_TIMEOUT}s; see $KAFKA_LOG"
    }
    sleep 0.3
  done
}

# -------------------------------------------------------------------------------------------- registry

start_registry() { # uses REGISTRY_PORT / REGISTRY_MANAGEMENT_PORT; keeps the H2 database file
  local java=$1
  mkdir -p "$REGISTRY_STATE/tmp" "$REGISTRY_STATE/db"
  local how="with its kept database"
  [[ -f $REGISTRY_DB.mv.db ]] || how="with a new database"
  local jar="$REGISTRY_HOME/quarkus-run.jar"
  [[ -f $jar ]] || jar="$REGISTRY_HOME/quarkus-app/quarkus-run.jar"
  local heap jvm
  read -r -a heap <<<"$REGISTRY_HEAP_OPTS"
  read -r -a jvm <<<"$REGISTRY_JVM_OPTS"
  if [[ $REGISTRY_CDS == 1 ]]; then
    mkdir -p "$CACHE_DIR/cds"
    local jsa
    jsa="$CACHE_DIR/cds/apicurio-registry-$APICURIO_VERSION-java$(java_major "$java").jsa"
    # The JVM rewrites a stale or truncated archive itself, but one without a valid header (a dump cut short:
    # the header is written last) only disables CDS, for good. Such a file goes; the next exit writes it anew.
    # a8 ab 0b f0: CDS_DYNAMIC_ARCHIVE_MAGIC 0xf00baba8, little-endian.
    if [[ -f $jsa && $(od -An -tx1 -N4 "$jsa" 2>/dev/null | tr -d ' \n') != a8ab0bf0 ]]; then
      log "removing the unusable class-data archive $jsa"
      rm -f "$jsa"
    fi
    # -Xlog:cds*=error: the dump lists ~20 harmless "Skipping <class>" warnings otherwise.
    jvm+=(-XX:+AutoCreateSharedArchive -XX:SharedArchiveFile="$jsa" '-Xlog:cds*=error')
  fi
  log "starting Apicurio Registry $APICURIO_VERSION on $STACK_HOST:$REGISTRY_PORT, management :$REGISTRY_MANAGEMENT_PORT, $how (log: $REGISTRY_LOG)"
  launch "$REGISTRY_STATE/registry.pid" "$REGISTRY_STATE" "$REGISTRY_LOG" \
    "$java" "${heap[@]}" "${jvm[@]}" -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dtoolcall.stack.component=registry -Dtoolcall.stack.dir="$STATE_DIR" \
    -Djava.io.tmpdir="$REGISTRY_STATE/tmp" \
    -Dquarkus.http.host=$STACK_HOST -Dquarkus.http.port="$REGISTRY_PORT" \
    -Dquarkus.management.host=$STACK_HOST -Dquarkus.management.port="$REGISTRY_MANAGEMENT_PORT" \
    -Dapicurio.storage.kind=sql -Dapicurio.storage.sql.kind=h2 \
    -Dapicurio.datasource.url="jdbc:h2:file:$REGISTRY_DB;$REGISTRY_H2_OPTIONS" \
    -Dapicurio.datasource.username=sa -Dapicurio.datasource.password=sa \
    -Dapicurio.storage.snapshot.location="$REGISTRY_STATE/tmp" -Dapicurio.import.work-dir="$REGISTRY_STATE/tmp" \
    -Dapicurio.rest.deletion.group.enabled=true -Dapicurio.rest.deletion.artifact.enabled=true \
    -Dapicurio.rest.deletion.artifact-version.enabled=true \
    -jar "$jar"
}

wait_registry() { # wait_registry PORT MANAGEMENT_PORT DEADLINE
  local port=$1 mport=$2 deadline=$3
  while :; do
    pid_of registry >/dev/null || {
      show_log_tail "$REGISTRY_LOG"
      die "Apicurio Registry exited during startup; see $REGISTRY_LOG"
    }
    registry_answers "$port" "$mport" && return 0
    ((SECONDS < deadline)) || {
      show_log_tail "$REGISTRY_LOG"
      die "Apicurio Registry did not become ready on $STACK_HOST:$port (management :$mport) within ${STACK_TIMEOUT}s; see $REGISTRY_LOG"
    }
    sleep 0.3
  done
}

# -------------------------------------------------------------------------------------------- commands

pid_alive() { # pid_alive PID : exists and is not a zombie
  local st
  st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ $st != Z* ]]
}

stop_pids() { # stop_pids PID... : SIGTERM, wait STACK_STOP_TIMEOUT, then SIGKILL (and wait until gone)
  (($# > 0)) || return 0
  kill -TERM "$@" 2>/dev/null || true
  local deadline=$((SECONDS + STACK_STOP_TIMEOUT)) p alive killed=0
  while :; do
    alive=()
    for p in "$@"; do pid_alive "$p" && alive+=("$p"); done
    ((${#alive[@]} == 0)) && return 0
    if ((SECONDS >= deadline)); then
      if ((killed)); then
        log "still present 10s after SIGKILL: ${alive[*]}"
        return 0
      fi
      log "still running after ${STACK_STOP_TIMEOUT}s, sending SIGKILL to ${alive[*]}"
      kill -KILL "${alive[@]}" 2>/dev/null || true
      killed=1 deadline=$((SECONDS + 10))  # tearing down a big JVM takes a moment, more so on a busy box
    fi
    sleep 0.2
  done
}

STARTED=()
on_up_exit() { # a failed `up` / `start-*` stops what it started (logs and data stay in the state dir)
  local rc=$? c q pids=()
  ((rc != 0 && ${#STARTED[@]} > 0)) || return 0
  for c in "${STARTED[@]}"; do q=$(pid_of "$c" || true); [[ -z $q ]] || pids+=("$q"); done
  log "stopping what this run started: ${STARTED[*]}"
  stop_pids "${pids[@]}"
  exit "$rc"
}

KJAVA='' RJAVA=''
resolve_kafka_java() {
  KJAVA=$(find_java 17 "${KAFKA_JAVA:-}") ||
    die "Kafka $KAFKA_VERSION needs Java 17+: $(if [[ -n ${KAFKA_JAVA:-} ]]; then echo "KAFKA_JAVA=$KAFKA_JAVA is not one"; else echo "none found in JAVA_HOME, PATH or /usr/lib/jvm (set KAFKA_JAVA=/path/to/java)"; fi)"
}
resolve_registry_java() {
  RJAVA=$(find_java 21 "${REGISTRY_JAVA:-}") ||
    die "Apicurio Registry $APICURIO_VERSION needs Java 21+ (on 17 it fails with UnsupportedClassVersionError): $(if [[ -n ${REGISTRY_JAVA:-} ]]; then echo "REGISTRY_JAVA=$REGISTRY_JAVA is not one"; else echo "none found in JAVA_HOME, PATH or /usr/lib/jvm (set REGISTRY_JAVA=/path/to/java)"; fi)"
}

ports_must_be_free() { # ports_must_be_free kafka|registry [HINT] : for what we are about to start
  local p ports hint
  if [[ $1 == kafka ]]; then
    ports=("$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT") hint=${2-"; set KAFKA_PORT / KAFKA_CONTROLLER_PORT"}
  else
    ports=("$REGISTRY_PORT" "$REGISTRY_MANAGEMENT_PORT") hint=${2-"; set REGISTRY_PORT / REGISTRY_MANAGEMENT_PORT"}
  fi
  for p in "${ports[@]}"; do
    ! port_busy "$p" || die "port $p is in use by another process$hint"
  done
}

has_kept_data() { [[ -f $KAFKA_STATE/data/meta.properties || -f $REGISTRY_DB.mv.db ]]; }

up_lines() { # what `up` (both) or `up-kafka` (KAFKA_ONLY=1) prints
  if ((KAFKA_ONLY)); then printf 'KAFKA_BROKERS=%s:%s\n' "$STACK_HOST" "$KAFKA_PORT"; else env_lines "$KAFKA_PORT" "$REGISTRY_PORT"; fi
  security_lines
}

KAFKA_ONLY=0
cmd_up() {
  take_lock
  mkdir -p "$STATE_DIR"
  local kafka_pid registry_pid=''
  kafka_pid=$(pid_of kafka || true)
  ((KAFKA_ONLY)) || registry_pid=$(pid_of registry || true)

  if [[ -n $kafka_pid || -n $registry_pid ]] || has_kept_data; then
    load_recorded_ports
    if [[ $REC_KAFKA_PORT != "$KAFKA_PORT" || $REC_KAFKA_CONTROLLER_PORT != "$KAFKA_CONTROLLER_PORT" ||
      $REC_REGISTRY_PORT != "$REGISTRY_PORT" || $REC_REGISTRY_MANAGEMENT_PORT != "$REGISTRY_MANAGEMENT_PORT" ]]; then
      die "the stack in $STATE_DIR $(if [[ -n $kafka_pid || -n $registry_pid ]]; then echo "already runs"; else echo "is stopped but keeps its data"; fi) with ports kafka=$REC_KAFKA_PORT/$REC_KAFKA_CONTROLLER_PORT registry=$REC_REGISTRY_PORT/$REC_REGISTRY_MANAGEMENT_PORT; use those or run 'bash scripts/stack.sh down' first"
    fi
    if [[ $REC_KAFKA_SECURITY != "$KAFKA_SECURITY" || $REC_KAFKA_AUTO_CREATE_TOPICS != "$KAFKA_AUTO_CREATE_TOPICS" ]]; then
      die "the stack in $STATE_DIR was created with KAFKA_SECURITY='$REC_KAFKA_SECURITY' KAFKA_AUTO_CREATE_TOPICS=$REC_KAFKA_AUTO_CREATE_TOPICS; use those or run 'bash scripts/stack.sh down' first"
    fi
    adopt_recorded_security
  fi
  if [[ -n $kafka_pid ]] && { ((KAFKA_ONLY)) || [[ -n $registry_pid ]]; } && kafka_answers "$KAFKA_PORT" &&
    { ((KAFKA_ONLY)) || registry_answers "$REGISTRY_PORT" "$REGISTRY_MANAGEMENT_PORT"; }; then
    if ((KAFKA_ONLY)); then log "already up (kafka pid $kafka_pid)"; else log "already up (kafka pid $kafka_pid, registry pid $registry_pid)"; fi
    up_lines
    return 0
  fi

  resolve_kafka_java
  ((KAFKA_ONLY)) || resolve_registry_java
  [[ -n $kafka_pid ]] || ports_must_be_free kafka
  ((KAFKA_ONLY)) || [[ -n $registry_pid ]] || ports_must_be_free registry
  if [[ -z $kafka_pid ]] && security_has sasl-scram; then ! port_busy "$KAFKA_SASL_PORT" || die "port $KAFKA_SASL_PORT is in use by another process; set KAFKA_SASL_PORT"; fi
  if [[ -z $kafka_pid ]] && security_has tls; then ! port_busy "$KAFKA_TLS_PORT" || die "port $KAFKA_TLS_PORT is in use by another process; set KAFKA_TLS_PORT"; fi
  if [[ -z $kafka_pid ]] && security_has sasl-tls; then ! port_busy "$KAFKA_SASL_TLS_PORT" || die "port $KAFKA_SASL_TLS_PORT is in use by another process; set KAFKA_SASL_TLS_PORT"; fi
  [[ -n $kafka_pid ]] || ensure_kafka_jars
  ((KAFKA_ONLY)) || [[ -n $registry_pid ]] || ensure_registry_app

  {
    printf 'kafka_port=%s\nkafka_controller_port=%s\n' "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"
    printf 'registry_port=%s\nregistry_management_port=%s\n' "$REGISTRY_PORT" "$REGISTRY_MANAGEMENT_PORT"
    record_security
  } >"$ENV_FILE"

  local deadline=$((SECONDS + STACK_TIMEOUT))
  STARTED=()
  trap on_up_exit EXIT
  if ((!KAFKA_ONLY)) && [[ -z $registry_pid ]]; then STARTED+=(registry); start_registry "$RJAVA"; fi  # the slower one first
  if [[ -z $kafka_pid ]]; then STARTED+=(kafka); start_kafka "$KJAVA"; fi

  wait_kafka "$KJAVA" "$KAFKA_PORT" "$deadline" "$([[ -z $kafka_pid ]] && echo 1 || echo 0)"
  log "Kafka ready on $STACK_HOST:$KAFKA_PORT${KAFKA_SECURITY:+ (also $KAFKA_SECURITY)}"
  if ((!KAFKA_ONLY)); then
    wait_registry "$REGISTRY_PORT" "$REGISTRY_MANAGEMENT_PORT" "$deadline"
    log "Apicurio Registry ready on $STACK_HOST:$REGISTRY_PORT"
  fi
  trap - EXIT
  up_lines
}

cmd_down() {
  take_lock
  local pids=() c p
  for c in kafka registry oidc; do
    if p=$(pid_of "$c"); then log "stopping $c (pid $p)"; pids+=("$p"); fi
  done
  for p in $(stray_pids); do
    [[ " ${pids[*]} " == *" $p "* ]] || { log "stopping stray stack process $p"; pids+=("$p"); }
  done
  stop_pids "${pids[@]}"
  if [[ -d $STATE_DIR ]]; then rm -rf "$STATE_DIR"; fi
  if ((${#pids[@]} > 0)); then log "stopped"; else log "nothing was running"; fi
}

cmd_stop_one() { # cmd_stop_one kafka|registry : stop one service, keep its data (idempotent)
  local c=$1 p
  take_lock
  if p=$(pid_of "$c"); then
    log "stopping $c (pid $p); its data stays in $STATE_DIR/$c"
    local t0=$SECONDS
    stop_pids "$p"
    ! pid_alive "$p" || die "$c (pid $p) survived SIGKILL"
    rm -f "$STATE_DIR/$c/$c.pid"
    log "$c stopped ($((SECONDS - t0))s)"
  else
    log "$c is not running"
  fi
}

cmd_start_one() { # cmd_start_one kafka|registry : start one service again with its ports and data (idempotent)
  local c=$1 pid
  take_lock
  [[ -f $ENV_FILE ]] || die "no stack in $STATE_DIR to start $c in; run 'bash scripts/stack.sh up'"
  # The ports the stack was created with, whatever this shell sets.
  load_recorded_ports
  KAFKA_PORT=$REC_KAFKA_PORT KAFKA_CONTROLLER_PORT=$REC_KAFKA_CONTROLLER_PORT
  REGISTRY_PORT=$REC_REGISTRY_PORT REGISTRY_MANAGEMENT_PORT=$REC_REGISTRY_MANAGEMENT_PORT
  adopt_recorded_security
  local deadline=$((SECONDS + STACK_TIMEOUT))
  if [[ $c == kafka ]]; then
    resolve_kafka_java
    if pid=$(pid_of kafka); then
      log "kafka already runs (pid $pid)"
      wait_kafka "$KJAVA" "$KAFKA_PORT" "$deadline" 0
    else
      ports_must_be_free kafka " (start-kafka reuses the stack's ports: free it, or 'down' and 'up' with other ports)"
      ensure_kafka_jars
      STARTED=(kafka)
      trap on_up_exit EXIT
      start_kafka "$KJAVA"
      wait_kafka "$KJAVA" "$KAFKA_PORT" "$deadline" 1
      trap - EXIT
    fi
    log "Kafka ready on $STACK_HOST:$KAFKA_PORT"
  else
    resolve_registry_java
    if pid=$(pid_of registry); then
      log "registry already runs (pid $pid)"
    else
      ports_must_be_free registry " (start-registry reuses the stack's ports: free it, or 'down' and 'up' with other ports)"
      ensure_registry_app
      STARTED=(registry)
      trap on_up_exit EXIT
      start_registry "$RJAVA"
    fi
    wait_registry "$REGISTRY_PORT" "$REGISTRY_MANAGEMENT_PORT" "$deadline"
    trap - EXIT
    log "Apicurio Registry ready on $STACK_HOST:$REGISTRY_PORT"
  fi
}

cmd_fetch() {
  take_lock
  ensure_kafka_jars
  ensure_registry_app
  printf 'KAFKA_VERSION=%s\nKAFKA_HOME=%s\nAPICURIO_VERSION=%s\nREGISTRY_HOME=%s\n' "$KAFKA_VERSION" "$KAFKA_HOME" "$APICURIO_VERSION" "$REGISTRY_HOME"
}

cmd_status() {
  load_recorded_ports
  local ok=0 p
  if p=$(pid_of kafka); then
    if kafka_answers "$REC_KAFKA_PORT"; then
      echo "kafka: running (pid $p) on $STACK_HOST:$REC_KAFKA_PORT, controller :$REC_KAFKA_CONTROLLER_PORT, Kafka $KAFKA_VERSION; log $KAFKA_LOG"
    else
      echo "kafka: process $p runs but $STACK_HOST:$REC_KAFKA_PORT does not answer; log $KAFKA_LOG"; ok=1
    fi
  elif [[ -f $KAFKA_STATE/data/meta.properties ]]; then
    echo "kafka: not running, data kept in $KAFKA_STATE/data ('bash scripts/stack.sh start-kafka' or 'up' starts it)"; ok=1
  else
    echo "kafka: not running"; ok=1
  fi
  if p=$(pid_of registry); then
    if registry_answers "$REC_REGISTRY_PORT" "$REC_REGISTRY_MANAGEMENT_PORT"; then
      echo "registry: running (pid $p) on $STACK_HOST:$REC_REGISTRY_PORT, management :$REC_REGISTRY_MANAGEMENT_PORT, Apicurio Registry $APICURIO_VERSION; log $REGISTRY_LOG"
    else
      echo "registry: process $p runs but is not ready on $STACK_HOST:$REC_REGISTRY_PORT; log $REGISTRY_LOG"; ok=1
    fi
  elif [[ -f $REGISTRY_DB.mv.db ]]; then
    echo "registry: not running, data kept in $REGISTRY_DB.mv.db ('bash scripts/stack.sh start-registry' or 'up' starts it)"; ok=1
  else
    echo "registry: not running"; ok=1
  fi
  if ((ok == 0)); then env_lines "$REC_KAFKA_PORT" "$REC_REGISTRY_PORT"; adopt_recorded_security; security_lines; fi
  return "$ok"
}

cmd_env() {
  load_recorded_ports
  if pid_of kafka >/dev/null && pid_of registry >/dev/null && kafka_answers "$REC_KAFKA_PORT" &&
    registry_answers "$REC_REGISTRY_PORT" "$REC_REGISTRY_MANAGEMENT_PORT"; then
    env_lines "$REC_KAFKA_PORT" "$REC_REGISTRY_PORT"
    adopt_recorded_security
    security_lines
  else
    die "the stack is not up; run 'npm run stack:up' (bash scripts/stack.sh up)"
  fi
}

usage() {
  cat <<'EOF_USAGE'
usage: bash scripts/stack.sh <command>

  up              start Kafka and Apicurio Registry (idempotent; also starts a service stopped with stop-*,
                  with its data); prints KAFKA_BROKERS=... and SCHEMA_REGISTRY_URL=... on stdout
  down            stop both and remove all state and data (idempotent)
  status          show what runs (exit 0 when both are up and answering)
  env             print KAFKA_BROKERS=... and SCHEMA_REGISTRY_URL=... when both are up
  fetch           fetch Kafka's jars and Apicurio Registry (cached); prints KAFKA_HOME=... and REGISTRY_HOME=...
  up-kafka        start Kafka only (for a broker of a test's own: own ports and STACK_STATE_DIR); prints
                  KAFKA_BROKERS=...; KAFKA_SECURITY=sasl-scram,tls,sasl-tls adds secured listeners
  stop-kafka      stop Kafka only (SIGTERM, then SIGKILL after STACK_STOP_TIMEOUT); keeps its log dirs
  start-kafka     start Kafka again with the same ports and data; waits until ready
  stop-registry   stop Apicurio Registry only; keeps its database
  start-registry  start Apicurio Registry again with the same ports and data; waits until ready
  help            this text

Environment: KAFKA_PORT KAFKA_CONTROLLER_PORT REGISTRY_PORT REGISTRY_MANAGEMENT_PORT STACK_STATE_DIR
STACK_CACHE_DIR STACK_TIMEOUT STACK_STOP_TIMEOUT KAFKA_SECURITY KAFKA_AUTO_CREATE_TOPICS KAFKA_SCRAM_USERS ...
(see the comment at the top of scripts/stack.sh)
EOF_USAGE
}

case ${1:-} in
  up) cmd_up ;;
  up-kafka) KAFKA_ONLY=1 cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  env) cmd_env ;;
  fetch) cmd_fetch ;;
  stop-kafka) cmd_stop_one kafka ;;
  start-kafka) cmd_start_one kafka ;;
  stop-registry) cmd_stop_one registry ;;
  start-registry) cmd_start_one registry ;;
  help | -h | --help) usage ;;
  '')
    usage >&2
    exit 2
    ;;
  *)
    log "unknown command '$1'"
    usage >&2
    exit 2
    ;;
esac
