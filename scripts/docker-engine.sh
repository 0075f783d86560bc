#!/usr/bin/env bash
# Makes sure a Docker engine answers on this machine, starting one when none does (idempotent).
#
#   bash scripts/docker-engine.sh            start dockerd when no engine answers, wait for `docker info`
#   bash scripts/docker-engine.sh status     exit 0 when an engine answers, 1 otherwise (starts nothing)
#   DOCKER_INSTALL=1 bash scripts/docker-engine.sh   also apt-get install docker.io when dockerd is missing
#
# The engine here is Debian's docker.io (20.10, API 1.41, the classic builder: no BuildKit); the `docker` CLI
# may be newer and negotiates down. dockerd runs with --bridge=none: containers get the host network or none,
# so nothing ever talks to a container address (every image build and container uses --network host).
# Logs: $DOCKER_ENGINE_LOG (default ~/.cache/toolcall-normalizer-docker/dockerd.log). Nothing on stdout.
set -euo pipefail

fail() { printf 'docker-engine: ERROR: %s\n' "$*" >&2; exit 1; }
info() { printf 'docker-engine: %s\n' "$*" >&2; }

state=${TOOLCALL_DOCKER_STATE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/toolcall-normalizer-docker}
log_file=${DOCKER_ENGINE_LOG:-$state/dockerd.log}
timeout_s=${DOCKER_ENGINE_TIMEOUT:-60}

answers() { command -v docker >/dev/null && timeout 10 docker info >/dev/null 2>&1; }

if [[ ${1:-} == status ]]; then answers; exit; fi
[[ -z ${1:-} ]] || fail "unknown command '$1' (use no argument or 'status')"

if answers; then
  info "engine answers: $(docker version --format 'server {{.Server.Version}}, API {{.Server.APIVersion}}' 2>/dev/null)"
  exit 0
fi

if ! command -v dockerd >/dev/null; then
  if [[ ${DOCKER_INSTALL:-0} == 1 && $(id -u) -eq 0 ]]; then
    info "installing docker.io from Debian"
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io >&2 \
      || fail "apt-get install docker.io failed"
  else
    fail "no Docker engine answers and dockerd is not installed: apt-get install docker.io (as root), or run with DOCKER_INSTALL=1"
  fi
fi
command -v docker >/dev/null || fail "dockerd is installed but the docker CLI is not on PATH"
[[ $(id -u) -eq 0 ]] || fail "no Docker engine answers and starting dockerd needs root: run this script as root, or start the engine yourself"

mkdir -p "$state"
# One starter at a time: two callers at once would otherwise race for the socket and the pid file.
exec 9>"$state/start.lock"
flock 9
if ! answers; then
  pid_file=/var/run/docker.pid
  if [[ -f $pid_file ]] && ! kill -0 "$(cat "$pid_file")" 2>/dev/null; then rm -f "$pid_file"; fi
  if [[ -f $pid_file ]]; then
    info "dockerd (pid $(cat "$pid_file")) runs but does not answer yet; waiting"
  else
    info "starting dockerd (log: $log_file)"
    # setsid: the engine outlives this script and the shell that ran it.
    setsid dockerd --bridge=none --iptables=false --ip-masq=false --pidfile "$pid_file" </dev/null >>"$log_file" 2>&1 &
  fi
  deadline=$((SECONDS + timeout_s))
  until answers; do
    if ((SECONDS >= deadline)); then
      tail -n 20 "$log_file" >&2 || true
      fail "dockerd did not answer within ${timeout_s}s; see $log_file"
    fi
    sleep 0.5
  done
fi
info "engine answers: $(docker version --format 'server {{.Server.Version}}, API {{.Server.APIVersion}}' 2>/dev/null)"
