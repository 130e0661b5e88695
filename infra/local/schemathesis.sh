#!/usr/bin/env bash
# Schemathesis (PyPI), the API fuzzer the test suite runs against the served OpenAPI document, in a
# virtual environment cached outside the work tree (no system Python package is touched).
#
#   infra/local/schemathesis.sh install   create the cached venv with the pinned version (once)
#   infra/local/schemathesis.sh path      print the path of the schemathesis executable
#
# Environment: VOP_CACHE_DIR (default ~/.cache/vop).
set -euo pipefail

readonly VERSION=4.32.5
readonly CACHE_ROOT="${VOP_CACHE_DIR:-$HOME/.cache/vop}"
readonly VENV="$CACHE_ROOT/schemathesis-$VERSION"
readonly BIN="$VENV/bin/schemathesis"

log() { echo "schemathesis.sh: $*" >&2; }

cmd_install() {
  if [[ -x "$BIN" ]] && "$BIN" --version 2>/dev/null | grep -q "$VERSION"; then
    return 0
  fi
  command -v python3 >/dev/null || { log "python3 is needed"; exit 1; }
  log "installing schemathesis $VERSION into $VENV"
  rm -rf "$VENV"
  mkdir -p "$CACHE_ROOT"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION"
  "$BIN" --version
}

case "${1:-}" in
  install) cmd_install ;;
  path) echo "$BIN" ;;
  *)
    echo "usage: $0 install|path" >&2
    exit 2
    ;;
esac
