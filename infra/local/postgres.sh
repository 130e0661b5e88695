#!/usr/bin/env bash
# A private PostgreSQL cluster for development and tests, without Docker.
#   postgres.sh install | start | stop | status | url
# Environment: VOP_INFRA_DIR (default <repo>/.infra), VOP_PG_PORT (default 54329).
set -euo pipefail

readonly SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly REPO_DIR="$(cd "$SCRIPT_DIR/../.." && pwd)"
readonly INFRA_DIR="${VOP_INFRA_DIR:-$REPO_DIR/.infra}"
readonly PG_DIR="$INFRA_DIR/pg"
readonly DATA_DIR="$PG_DIR/data"
readonly LOG_FILE="$PG_DIR/postgres.log"
readonly PORT="${VOP_PG_PORT:-54329}"
readonly WANTED_MAJOR=15
readonly APP_ROLE=vop
readonly APP_PASSWORD=vop
readonly APP_DATABASE=vop
# A database per service beside the gateway's (vop), as the distributed run of docs/operations.md uses them: an event
# store reader waits for the running transactions of its own database only
# (packages/event-store/src/event-store.ts), so a batch's transactions never hold a single check's relay.
readonly SERVICE_DATABASES=(vop_matching vop_batch vop_analytics vop_webhooks)

log() { echo "postgres.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
  echo "usage: $0 install|start|stop|status|url" >&2
  exit 2
}

# Prefers the major version we write SQL for; accepts a newer one only when 15 is absent.
find_bin_dir() {
  if [[ -x "/usr/lib/postgresql/$WANTED_MAJOR/bin/postgres" ]]; then
    echo "/usr/lib/postgresql/$WANTED_MAJOR/bin"
    return 0
  fi
  local candidate
  candidate="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -n "$candidate" && -x "$candidate/postgres" ]]; then
    echo "$candidate"
    return 0
  fi
  return 1
}

# pg_ctl and initdb refuse to run as root, so root delegates to the postgres OS user.
as_db_owner() {
  if [[ $EUID -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

cmd_install() {
  if find_bin_dir >/dev/null; then
    return 0
  fi
  [[ $EUID -eq 0 ]] || die "PostgreSQL is not installed and installing it needs root (apt-get install -y postgresql)"
  log "installing PostgreSQL from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y postgresql
  find_bin_dir >/dev/null || die "PostgreSQL binaries not found under /usr/lib/postgresql after installing"
}

is_running() {
  local bin_dir="$1"
  [[ -f "$DATA_DIR/PG_VERSION" ]] || return 1
  as_db_owner "$bin_dir/pg_ctl" -D "$DATA_DIR" status >/dev/null 2>&1
}

check_paths() {
  if [[ $EUID -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || die "the postgres OS user does not exist (is the postgresql package installed?)"
    runuser -u postgres -- test -x "$INFRA_DIR" ||
      die "the postgres OS user cannot reach $INFRA_DIR; set VOP_INFRA_DIR to a directory it can traverse"
  fi
  # Unix socket paths are limited to 107 bytes by the kernel.
  local socket_path="$DATA_DIR/.s.PGSQL.$PORT"
  if ((${#socket_path} > 107)); then
    die "socket path $socket_path is longer than 107 bytes; set VOP_INFRA_DIR to a shorter directory"
  fi
}

init_cluster() {
  local bin_dir="$1"
  local staging_dir="$PG_DIR/data.initdb"
  log "creating cluster in $DATA_DIR"
  rm -rf "$staging_dir"
  mkdir -p "$staging_dir"
  [[ $EUID -eq 0 ]] && chown postgres:postgres "$staging_dir"
  chmod 700 "$staging_dir"
  as_db_owner "$bin_dir/initdb" -D "$staging_dir" -U postgres --auth=trust --encoding=UTF8 --locale=C >/dev/null
  cat >"$staging_dir/pg_hba.conf" <<'EOF'
# TYPE  DATABASE  USER  ADDRESS        METHOD
local   all       all                  trust
host    all       all   127.0.0.1/32   trust
EOF
  echo "include_if_exists = 'vop.conf'" >>"$staging_dir/postgresql.conf"
  [[ $EUID -eq 0 ]] && chown postgres:postgres "$staging_dir/pg_hba.conf" "$staging_dir/postgresql.conf"
  # Renamed only when complete, so an interrupted initdb never leaves a half-made cluster behind.
  mv "$staging_dir" "$DATA_DIR"
}

# Rewritten on every start so that VOP_PG_PORT always wins.
write_settings() {
  cat >"$DATA_DIR/vop.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DATA_DIR'
max_connections = 200
synchronous_commit = off
EOF
  [[ $EUID -eq 0 ]] && chown postgres:postgres "$DATA_DIR/vop.conf"
  return 0
}

ensure_role_and_database() {
  local bin_dir="$1"
  local psql=("$bin_dir/psql" -X -q -v ON_ERROR_STOP=1 -h "$DATA_DIR" -p "$PORT" -U postgres -d postgres)
  as_db_owner "${psql[@]}" <<EOF
DO \$\$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$APP_ROLE') THEN
    CREATE ROLE $APP_ROLE SUPERUSER LOGIN PASSWORD '$APP_PASSWORD';
  END IF;
END
\$\$;
SELECT format('CREATE DATABASE %I OWNER $APP_ROLE', name)
  FROM unnest(string_to_array('$APP_DATABASE ${SERVICE_DATABASES[*]}', ' ')) AS name
 WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = name) \gexec
EOF
}

with_lock() {
  mkdir -p "$PG_DIR"
  exec 9>"$PG_DIR/.lock"
  flock 9
}

cmd_start() {
  cmd_install
  local bin_dir
  bin_dir="$(find_bin_dir)"
  mkdir -p "$PG_DIR"
  [[ $EUID -eq 0 ]] && chown postgres:postgres "$PG_DIR"
  check_paths
  with_lock
  if is_running "$bin_dir"; then
    log "already running ($(cmd_url))"
    return 0
  fi
  [[ -f "$DATA_DIR/PG_VERSION" ]] || init_cluster "$bin_dir"
  write_settings
  touch "$LOG_FILE"
  [[ $EUID -eq 0 ]] && chown postgres:postgres "$LOG_FILE"
  # 9>&-: the server must not inherit the lock, or it would hold it for its whole life.
  if ! as_db_owner "$bin_dir/pg_ctl" -D "$DATA_DIR" -l "$LOG_FILE" -w -t 60 start >/dev/null 9>&-; then
    tail -n 20 "$LOG_FILE" >&2 || true
    die "PostgreSQL did not start; see $LOG_FILE"
  fi
  ensure_role_and_database "$bin_dir"
  log "started ($(cmd_url))"
}

cmd_stop() {
  local bin_dir
  bin_dir="$(find_bin_dir)" || { log "not installed"; return 0; }
  [[ -d "$PG_DIR" ]] || { log "not running"; return 0; }
  with_lock
  if is_running "$bin_dir"; then
    as_db_owner "$bin_dir/pg_ctl" -D "$DATA_DIR" -m fast -w -t 60 stop >/dev/null
    log "stopped"
  else
    log "not running"
  fi
}

# Exit status 0 when running, 3 when not (as pg_ctl status).
cmd_status() {
  local bin_dir
  if bin_dir="$(find_bin_dir)" && is_running "$bin_dir"; then
    echo "running on 127.0.0.1:$PORT (data $DATA_DIR)"
    return 0
  fi
  echo "not running"
  return 3
}

cmd_url() {
  echo "postgres://$APP_ROLE:$APP_PASSWORD@127.0.0.1:$PORT/$APP_DATABASE"
}

[[ $# -eq 1 ]] || usage
case "$1" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  url) cmd_url ;;
  *) usage ;;
esac
