#!/usr/bin/env bash
# Local Apache Kafka without Docker: a single combined KRaft node (broker + controller) on 127.0.0.1,
# fetched from Maven Central with Maven and cached outside the work tree.
#
#   infra/local/kafka.sh install   fetch the broker's jars into the cache (once; reruns reuse it)
#   infra/local/kafka.sh start     install if needed, format storage once, start, wait until it answers
#   infra/local/kafka.sh stop      stop the broker this script started and wait for it to exit
#   infra/local/kafka.sh status    say whether it runs and answers
#   infra/local/kafka.sh brokers   print the bootstrap address (127.0.0.1:<port>)
#
# Environment: VOP_CACHE_DIR (default ~/.cache/vop), VOP_INFRA_DIR (default <repo>/.infra),
# VOP_KAFKA_PORT (19092), VOP_KAFKA_CONTROLLER_PORT (19093), VOP_KAFKA_START_TIMEOUT (seconds, 90),
# VOP_KAFKA_HEAP (1g).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPT_DIR/../.." && pwd)"
TEMPLATE_DIR="$SCRIPT_DIR/kafka"
POM="$TEMPLATE_DIR/pom.xml"

KAFKA_VERSION="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$POM" | head -n 1)"
CACHE_ROOT="${VOP_CACHE_DIR:-$HOME/.cache/vop}"
CACHE_DIR="$CACHE_ROOT/kafka-$KAFKA_VERSION"
LIBS_DIR="$CACHE_DIR/libs"
INSTALLED_MARKER="$CACHE_DIR/installed.pom.sha256"

INFRA_DIR="${VOP_INFRA_DIR:-$REPO_DIR/.infra}"
STATE_DIR="$INFRA_DIR/kafka"
DATA_DIR="$STATE_DIR/data"
CONFIG_FILE="$STATE_DIR/server.properties"
CLUSTER_ID_FILE="$STATE_DIR/cluster.id"
PID_FILE="$STATE_DIR/kafka.pid"
LOG_FILE="$STATE_DIR/kafka.log"

PORT="${VOP_KAFKA_PORT:-19092}"
CONTROLLER_PORT="${VOP_KAFKA_CONTROLLER_PORT:-19093}"
START_TIMEOUT="${VOP_KAFKA_START_TIMEOUT:-90}"
HEAP="${VOP_KAFKA_HEAP:-1g}"
BOOTSTRAP="127.0.0.1:$PORT"

log() { echo "kafka.sh: $*" >&2; }
die() { log "$*"; exit 1; }

pom_checksum() { sha256sum "$POM" | cut -d' ' -f1; }

is_installed() {
  [[ -f "$INSTALLED_MARKER" && "$(cat "$INSTALLED_MARKER")" == "$(pom_checksum)" ]]
}

ensure_tools() {
  local missing=()
  command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null 2>&1 || missing+=(maven)
  if ((${#missing[@]} > 0)); then
    [[ "$(id -u)" == 0 ]] || die "missing ${missing[*]}; install them (apt-get install -y ${missing[*]})"
    log "installing ${missing[*]} with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

cmd_install() {
  if is_installed; then
    return 0
  fi
  ensure_tools
  log "fetching Kafka $KAFKA_VERSION from Maven Central into $LIBS_DIR"
  mkdir -p "$CACHE_DIR"
  # Download into a scratch directory and move it into place, so an interrupted run never leaves a
  # half-filled libs directory that a later run would take for complete.
  local scratch="$CACHE_DIR/libs.partial.$$"
  rm -rf "$scratch"
  # Maven 3.8 prints colour resets even in batch mode; strip them so logs stay readable.
  (cd "$TEMPLATE_DIR" && mvn -q -B -Dstyle.color=never dependency:copy-dependencies -DoutputDirectory="$scratch" \
    -DincludeScope=runtime 2>&1 | sed -e 's/\x1b\[[0-9;]*m//g' -e '/^$/d' >&2) ||
    { rm -rf "$scratch"; die "mvn dependency:copy-dependencies failed"; }
  rm -rf "$LIBS_DIR"
  mv "$scratch" "$LIBS_DIR"
  pom_checksum >"$INSTALLED_MARKER"
  log "installed $(find "$LIBS_DIR" -name '*.jar' | wc -l) jars"
}

running_pid() {
  [[ -f "$PID_FILE" ]] || return 1
  local pid
  pid="$(cat "$PID_FILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  # The pid must still be our broker, not an unrelated process that reused the number.
  if [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "kafka.Kafka $CONFIG_FILE"; then
    echo "$pid"
    return 0
  fi
  return 1
}

port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A metadata round trip through kafkajs (ready.mjs). Without node_modules (pnpm install not run yet)
# it falls back to the open port plus the broker's own "started" log line.
broker_answers() {
  local timeout_ms="${1:-5000}" status=0
  node "$TEMPLATE_DIR/ready.mjs" "$BOOTSTRAP" "$timeout_ms" 2>/dev/null || status=$?
  if ((status == 2)); then
    port_open "$PORT" && grep -q 'Kafka Server started' "$LOG_FILE" 2>/dev/null
    return
  fi
  return "$status"
}

render_config() {
  mkdir -p "$DATA_DIR"
  sed -e "s#@PORT@#$PORT#g" -e "s#@CONTROLLER_PORT@#$CONTROLLER_PORT#g" -e "s#@DATA_DIR@#$DATA_DIR#g" \
    "$TEMPLATE_DIR/server.properties.template" >"$CONFIG_FILE"
}

JAVA_OPTIONS=(
  -Xms256m "-Xmx$HEAP" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true
  "-Dlog4j2.configurationFile=$TEMPLATE_DIR/log4j2.properties"
  -cp "$LIBS_DIR/*"
)

format_storage_once() {
  if [[ -f "$DATA_DIR/meta.properties" ]]; then
    return 0
  fi
  if [[ ! -s "$CLUSTER_ID_FILE" ]]; then
    # A Kafka cluster id is 16 random bytes in URL-safe base64 without padding (22 characters).
    # One in 64 starts with '-', which the tool's argument parser takes for an option: draw again.
    local id="-"
    while [[ "$id" == -* ]]; do
      id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
    done
    printf '%s' "$id" >"$CLUSTER_ID_FILE"
  fi
  log "formatting storage in $DATA_DIR"
  java "${JAVA_OPTIONS[@]}" kafka.tools.StorageTool format --cluster-id="$(cat "$CLUSTER_ID_FILE")" -c "$CONFIG_FILE" \
    >>"$LOG_FILE" 2>&1 || { tail -n 40 "$LOG_FILE" >&2; die "storage format failed"; }
}

wait_until_ready() {
  local pid="$1" deadline=$((SECONDS + START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "broker exited during start; last lines of $LOG_FILE:"
      tail -n 60 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE"
      return 1
    fi
    if port_open "$PORT" && broker_answers 5000; then
      return 0
    fi
    sleep 1
  done
  log "broker did not answer within ${START_TIMEOUT}s; last lines of $LOG_FILE:"
  tail -n 60 "$LOG_FILE" >&2 || true
  return 1
}

cmd_start() {
  local pid
  if pid="$(running_pid)"; then
    wait_until_ready "$pid" || exit 1
    log "already running (pid $pid) on $BOOTSTRAP"
    return 0
  fi
  rm -f "$PID_FILE"
  for port in "$PORT" "$CONTROLLER_PORT"; do
    if port_open "$port"; then
      die "port $port on 127.0.0.1 is taken by another process; set VOP_KAFKA_PORT / VOP_KAFKA_CONTROLLER_PORT"
    fi
  done
  cmd_install
  command -v node >/dev/null 2>&1 || die "node is needed to check the broker is ready"
  mkdir -p "$STATE_DIR"
  render_config
  format_storage_once
  log "starting Kafka $KAFKA_VERSION on $BOOTSTRAP (log: $LOG_FILE)"
  # setsid: the broker must outlive this script and the shell that ran it.
  setsid java "${JAVA_OPTIONS[@]}" kafka.Kafka "$CONFIG_FILE" >>"$LOG_FILE" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$PID_FILE"
  if ! wait_until_ready "$pid"; then
    cmd_stop
    exit 1
  fi
  log "ready (pid $pid) on $BOOTSTRAP"
}

cmd_stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PID_FILE"
    log "not running"
    return 0
  fi
  log "stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid still alive after 30s; killing"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  fi
  rm -f "$PID_FILE"
  log "stopped"
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    if broker_answers 3000; then
      echo "running (pid $pid) on $BOOTSTRAP"
    else
      echo "starting or unhealthy (pid $pid) on $BOOTSTRAP"
    fi
    return 0
  fi
  echo "stopped"
  return 3
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  brokers) echo "$BOOTSTRAP" ;;
  *)
    echo "usage: $0 install|start|stop|status|brokers" >&2
    exit 2
    ;;
esac
