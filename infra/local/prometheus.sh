#!/usr/bin/env bash
# Debian's prometheus package (the server and promtool), unpacked into a cache outside the work tree:
# `apt-get download` + `dpkg -x`, so nothing is installed system-wide. The test suite runs promtool on the
# alert rules and on every service's /metrics, and one real Prometheus scraping a service over mutual TLS.
#
#   infra/local/prometheus.sh install   download and unpack the pinned version (once)
#   infra/local/prometheus.sh promtool  print the path of promtool
#   infra/local/prometheus.sh server    print the path of the prometheus server
#
# Environment: VOP_CACHE_DIR (default ~/.cache/vop).
set -euo pipefail

readonly VERSION=2.42.0+ds-5+deb12u1
readonly CACHE_ROOT="${VOP_CACHE_DIR:-$HOME/.cache/vop}"
readonly ROOT="$CACHE_ROOT/prometheus-$VERSION"
readonly PROMTOOL="$ROOT/usr/bin/promtool"
readonly SERVER="$ROOT/usr/bin/prometheus"

log() { echo "prometheus.sh: $*" >&2; }

cmd_install() {
  if [[ -x "$PROMTOOL" && -x "$SERVER" ]]; then
    return 0
  fi
  command -v apt-get > /dev/null || { log "apt-get is needed (Debian's prometheus package)"; exit 1; }
  log "downloading Debian's prometheus $VERSION into $ROOT"
  local download
  download="$(mktemp -d)"
  # apt-get download writes as the _apt user when run as root; a world-writable folder lets it.
  chmod 777 "$download"
  if ! (cd "$download" && apt-get download -qq "prometheus=$VERSION" 2> /dev/null); then
    log "package list out of date; running apt-get update"
    apt-get update -qq
    (cd "$download" && apt-get download -qq "prometheus=$VERSION")
  fi
  rm -rf "$ROOT"
  mkdir -p "$ROOT"
  dpkg -x "$download"/prometheus_*.deb "$ROOT"
  rm -rf "$download"
  "$PROMTOOL" --version 2>&1 | head -1 >&2
}

case "${1:-install}" in
  install) cmd_install ;;
  promtool) echo "$PROMTOOL" ;;
  server) echo "$SERVER" ;;
  *)
    echo "usage: $0 install|promtool|server" >&2
    exit 2
    ;;
esac
