#!/usr/bin/env bash
# A local Confluent-compatible schema registry without Docker: Apicurio Registry 2.4.2 (in-memory), built
# once from Maven Central by infra/local/schema-registry/pom.xml (see the notes there) into a cache outside
# the work tree, and run with the JDK that runs Kafka.
#
#   infra/local/schema-registry.sh install   build the registry into the cache (once; reruns reuse it)
#   infra/local/schema-registry.sh start     install if needed, start, wait until it answers
#   infra/local/schema-registry.sh stop      stop the registry this script started
#   infra/local/schema-registry.sh url       print the Confluent API base (SCHEMA_REGISTRY_URL)
#
# Environment: VOP_CACHE_DIR (default ~/.cache/vop), VOP_INFRA_DIR (default <repo>/.infra),
# VOP_SCHEMA_REGISTRY_PORT (18081), VOP_SCHEMA_REGISTRY_START_TIMEOUT (seconds, 120).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPT_DIR/../.." && pwd)"
TEMPLATE_DIR="$SCRIPT_DIR/schema-registry"
readonly VERSION=2.4.2.Final
CACHE_ROOT="${VOP_CACHE_DIR:-$HOME/.cache/vop}"
BUILD_DIR="$CACHE_ROOT/apicurio-registry-$VERSION"
RUNNER="$BUILD_DIR/target/local-schema-registry-1.0.0-runner.jar"
INSTALLED_MARKER="$BUILD_DIR/installed.sha256"
INFRA_DIR="${VOP_INFRA_DIR:-$REPO_DIR/.infra}"
STATE_DIR="$INFRA_DIR/schema-registry"
PID_FILE="$STATE_DIR/registry.pid"
LOG_FILE="$STATE_DIR/registry.log"
PORT="${VOP_SCHEMA_REGISTRY_PORT:-18081}"
START_TIMEOUT="${VOP_SCHEMA_REGISTRY_START_TIMEOUT:-120}"
URL="http://127.0.0.1:$PORT/apis/ccompat/v7"

log() { echo "schema-registry.sh: $*" >&2; }
die() { log "$*"; exit 1; }

template_checksum() {
  (cd "$TEMPLATE_DIR" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
}

cmd_install() {
  if [[ -f "$INSTALLED_MARKER" && "$(cat "$INSTALLED_MARKER")" == "$(template_checksum)" && -f "$RUNNER" ]]; then
    return 0
  fi
  command -v java > /dev/null && command -v mvn > /dev/null ||
    die "java and mvn are needed (bash infra/local/kafka.sh install puts them there)"
  log "building Apicurio Registry $VERSION from Maven Central into $BUILD_DIR"
  rm -rf "$BUILD_DIR"
  mkdir -p "$BUILD_DIR"
  cp -r "$TEMPLATE_DIR/." "$BUILD_DIR/"
  (cd "$BUILD_DIR" && mvn -q -B -Dstyle.color=never package -DskipTests 2>&1 |
    sed -e 's/\x1b\[[0-9;]*m//g' -e '/^$/d' >&2) || die "mvn package failed"
  [[ -f "$RUNNER" ]] || die "the build made no $RUNNER"
  template_checksum > "$INSTALLED_MARKER"
}

running_pid() {
  [[ -f "$PID_FILE" ]] || return 1
  local pid
  pid="$(cat "$PID_FILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  # The pid must still be our registry, not an unrelated process that reused the number.
  if [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q "$RUNNER"; then
    echo "$pid"
    return 0
  fi
  return 1
}

answers() { curl -fsS -o /dev/null "$URL/subjects" 2> /dev/null; }

cmd_start() {
  local pid
  if pid="$(running_pid)" && answers; then
    log "already running (pid $pid) at $URL"
    return 0
  fi
  cmd_install
  mkdir -p "$STATE_DIR"
  log "starting on 127.0.0.1:$PORT (log: $LOG_FILE)"
  nohup java -Xmx384m -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$PORT" \
    -jar "$RUNNER" > "$LOG_FILE" 2>&1 &
  pid=$!
  echo "$pid" > "$PID_FILE"
  local deadline=$((SECONDS + START_TIMEOUT))
  until answers; do
    if ! kill -0 "$pid" 2> /dev/null; then
      tail -n 40 "$LOG_FILE" >&2
      die "the registry exited while starting"
    fi
    if ((SECONDS > deadline)); then
      cmd_stop
      die "the registry did not answer within ${START_TIMEOUT}s"
    fi
    sleep 1
  done
  log "ready (pid $pid) at $URL"
}

cmd_stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PID_FILE"
    return 0
  fi
  log "stopping pid $pid"
  kill -TERM "$pid" 2> /dev/null || true
  for _ in $(seq 1 30); do
    kill -0 "$pid" 2> /dev/null || break
    sleep 1
  done
  kill -0 "$pid" 2> /dev/null && kill -KILL "$pid" 2> /dev/null
  rm -f "$PID_FILE"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  url) echo "$URL" ;;
  *)
    echo "usage: $0 install|start|stop|url" >&2
    exit 2
    ;;
esac
