#!/usr/bin/env bash
# The distributed deployment on this machine: PostgreSQL, Kafka and every service as a process of its own
# (two gateways, two single-check matching instances, one batch matching instance, batch, analytics, webhook
# dispatcher), as docs/operations.md describes it. `pnpm start:distributed` / `pnpm stop:distributed`.
#
#   infra/local/distributed.sh start    start the servers (up.sh) and every process not running yet; wait until ready
#   infra/local/distributed.sh stop     stop every process it started, then the servers if it started them
#   infra/local/distributed.sh status   each process: running or not, its log
#
# Environment: VOP_DATA_DIR (default <repo>/.vop-data; the dev PKI, the internal secret, pids and logs under
# distributed/), VOP_INTERNAL_SECRET (default: the one kept in <data>/internal-secret, made once),
# VOP_GATEWAY_PORTS (default "8443 8444"), VOP_INTERNAL_PORT_BASE (default 9464: the internal listeners take
# the next six ports), VOP_WEBHOOK_ALLOWED_NETWORKS (default 127.0.0.1/32: a receiver on this machine),
# LOG_LEVEL (default info), and those of postgres.sh and kafka.sh (VOP_INFRA_DIR, VOP_PG_PORT, VOP_KAFKA_PORT, …).
set -euo pipefail

readonly SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly REPO_DIR="$(cd "$SCRIPT_DIR/../.." && pwd)"
DATA_DIR="${VOP_DATA_DIR:-$REPO_DIR/.vop-data}"
mkdir -p "$DATA_DIR"
DATA_DIR="$(cd "$DATA_DIR" && pwd)"
readonly DATA_DIR
readonly RUN_DIR="$DATA_DIR/distributed"
readonly PID_DIR="$RUN_DIR/pids"
readonly LOG_DIR="$RUN_DIR/logs"
readonly SECRET_FILE="$DATA_DIR/internal-secret"
# Present when start found the servers stopped and started them: stop then stops them too.
readonly SERVERS_MARK="$RUN_DIR/servers-started-here"
read -r -a GATEWAY_PORTS <<<"${VOP_GATEWAY_PORTS:-8443 8444}"
readonly BASE="${VOP_INTERNAL_PORT_BASE:-9464}"
readonly READY_TIMEOUT="${VOP_DISTRIBUTED_READY_TIMEOUT:-180}"

# name service port database instance-id [extra VAR=value ...]; the order is the start order.
readonly PROCESSES=(
  "matching-m1 matching $((BASE + 0)) vop_matching m1 VOP_MATCHING_ROLES=single"
  "matching-m2 matching $((BASE + 1)) vop_matching m2 VOP_MATCHING_ROLES=single"
  "matching-mb1 matching $((BASE + 5)) vop_matching mb1 VOP_MATCHING_ROLES=batch"
  "webhook-dispatcher-d1 webhook-dispatcher $((BASE + 2)) vop_webhooks d1"
  "analytics-a1 analytics $((BASE + 3)) vop_analytics a1"
  "batch-b1 batch $((BASE + 4)) vop_batch b1"
  "gateway-g1 gateway ${GATEWAY_PORTS[0]} vop g1"
  "gateway-g2 gateway ${GATEWAY_PORTS[1]} vop g2"
)

log() { echo "distributed.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

# The pid in the file, when that process is still this deployment's node process.
running_pid() {
  local file="$PID_DIR/$1.pid" pid
  [[ -f "$file" ]] || return 1
  pid="$(cat "$file")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "services/$2/dist/main.js" || return 1
  echo "$pid"
}

internal_secret() {
  if [[ -n "${VOP_INTERNAL_SECRET:-}" ]]; then
    echo "$VOP_INTERNAL_SECRET"
    return
  fi
  if [[ ! -s "$SECRET_FILE" ]]; then
    (umask 077 && openssl rand -hex 32 >"$SECRET_FILE.partial" && mv "$SECRET_FILE.partial" "$SECRET_FILE")
    log "made the internal secret in $SECRET_FILE"
  fi
  cat "$SECRET_FILE"
}

ready_url() {
  local service="$1" port="$2"
  if [[ "$service" == gateway ]]; then echo "https://127.0.0.1:$port/readyz"; else echo "http://127.0.0.1:$port/readyz"; fi
}

cmd_start() {
  [[ -f "$REPO_DIR/services/gateway/dist/main.js" ]] || die "not built: run pnpm build (pnpm start:distributed does)"
  mkdir -p "$PID_DIR" "$LOG_DIR"
  if ! bash "$SCRIPT_DIR/postgres.sh" status >/dev/null 2>&1 || ! bash "$SCRIPT_DIR/kafka.sh" status >/dev/null 2>&1; then
    touch "$SERVERS_MARK"
  fi
  bash "$SCRIPT_DIR/up.sh" >"$LOG_DIR/up.log" 2>&1 || { cat "$LOG_DIR/up.log" >&2; die "the servers did not start"; }
  local pg_url brokers secret pg services_json
  pg_url="$(bash "$SCRIPT_DIR/postgres.sh" url)"
  pg="${pg_url%/*}"
  brokers="$(bash "$SCRIPT_DIR/kafka.sh" brokers)"
  secret="$(internal_secret)"
  services_json="{\"matching\":\"http://127.0.0.1:$BASE\",\"webhook-dispatcher\":\"http://127.0.0.1:$((BASE + 2))\""
  services_json+=",\"analytics\":\"http://127.0.0.1:$((BASE + 3))\",\"batch\":\"http://127.0.0.1:$((BASE + 4))\"}"
  local entry name service port database instance extra pid
  for entry in "${PROCESSES[@]}"; do
    read -r name service port database instance extra <<<"$entry"
    if pid="$(running_pid "$name" "$service")"; then
      log "$name already running (pid $pid)"
      continue
    fi
    # setsid: the process outlives this script and the terminal that ran it.
    # shellcheck disable=SC2086
    (cd "$REPO_DIR" && exec setsid env \
      LOG_LEVEL="${LOG_LEVEL:-info}" \
      DATABASE_URL="$pg/$database" VOP_KEYSTORE_DATABASE_URL="$pg/vop" KAFKA_BROKERS="$brokers" \
      VOP_DATA_DIR="$DATA_DIR" VOP_INTERNAL_SECRET="$secret" VOP_SERVICE_URLS="$services_json" \
      VOP_WEBHOOK_ALLOWED_NETWORKS="${VOP_WEBHOOK_ALLOWED_NETWORKS:-127.0.0.1/32}" \
      VOP_PORT="$port" VOP_INSTANCE_ID="$instance" $extra \
      node "services/$service/dist/main.js" >>"$LOG_DIR/$name.log" 2>&1 </dev/null) &
    echo "$!" >"$PID_DIR/$name.pid"
    log "started $name (pid $!, port $port, log $LOG_DIR/$name.log)"
  done
  local deadline=$((SECONDS + READY_TIMEOUT))
  for entry in "${PROCESSES[@]}"; do
    read -r name service port database instance extra <<<"$entry"
    until curl -ksf -o /dev/null --max-time 3 "$(ready_url "$service" "$port")"; do
      running_pid "$name" "$service" >/dev/null || { tail -n 30 "$LOG_DIR/$name.log" >&2; die "$name exited"; }
      ((SECONDS < deadline)) || die "$name not ready after ${READY_TIMEOUT}s; see $LOG_DIR/$name.log"
      sleep 1
    done
  done
  log "ready: https://127.0.0.1:${GATEWAY_PORTS[0]} and https://127.0.0.1:${GATEWAY_PORTS[1]} (client certificates in $DATA_DIR/pki)"
}

cmd_stop() {
  local entry name service rest pid stopped=()
  # Gateways first, so nothing new arrives while the services behind them stop.
  for ((index = ${#PROCESSES[@]} - 1; index >= 0; index--)); do
    read -r name service rest <<<"${PROCESSES[index]}"
    if pid="$(running_pid "$name" "$service")"; then
      kill -TERM "$pid" 2>/dev/null || true
      stopped+=("$name:$service:$pid")
    fi
    rm -f "$PID_DIR/$name.pid"
  done
  local deadline=$((SECONDS + 30)) item
  for item in "${stopped[@]}"; do
    IFS=: read -r name service pid <<<"$item"
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then
      log "$name (pid $pid) still running after 30 s: killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    log "stopped $name"
  done
  if [[ -f "$SERVERS_MARK" ]]; then
    bash "$SCRIPT_DIR/down.sh"
    rm -f "$SERVERS_MARK"
  else
    log "PostgreSQL and Kafka were running before start: left running (infra/local/down.sh stops them)"
  fi
}

cmd_status() {
  local entry name service port rest pid
  for entry in "${PROCESSES[@]}"; do
    read -r name service port rest <<<"$entry"
    if pid="$(running_pid "$name" "$service")"; then
      echo "$name running (pid $pid, port $port, log $LOG_DIR/$name.log)"
    else
      echo "$name stopped"
    fi
  done
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
